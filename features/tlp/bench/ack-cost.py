# SPDX-License-Identifier: GPL-2.0
"""Count the instructions each tcp_ack() call executes in a QEMU guest.

Run by bench/ack-cost as: gdb -batch -nx -ex 'python ...settings...'
-x ack-cost.py vmlinux. The settings are ACK_COST_PORT (QEMU's gdb stub),
ACK_COST_CALLS (how many calls) and ACK_COST_OUT: a line per call, the
count, a tab, and the functions its instructions were in, as name:count
separated by spaces, the most stepped first.

A hardware breakpoint stops the guest (one vCPU) at the entry of
tcp_ack(); from there every instruction is stepped, callees included,
until the return lands at the caller with the stack popped. QEMU's default
single-step mode keeps interrupts and timers off while stepping, so the
count is the ACK's own work. A call still running after ACK_COST_LIMIT
instructions is written as -1.
"""
import gdb

MASK = (1 << 64) - 1
ACK_COST_LIMIT = 50000
SYMBOLS = {}


def reg(expr):
    return int(gdb.parse_and_eval(expr)) & MASK


def symbol(pc):
    """The function of @pc ('info symbol': vmlinux has no DWARF)."""
    if pc not in SYMBOLS:
        sym = gdb.execute(f'info symbol {pc:#x}', to_string=True).split()
        SYMBOLS[pc] = sym[0] if sym and sym[0] != 'No' else hex(pc)
    return SYMBOLS[pc]


def one_call():
    """Step one call from its entry: (instructions or -1, {pc: steps})."""
    sp0 = reg('$sp')
    ret = reg('*(unsigned long *)$sp')
    pcs = {reg('$pc'): 1}
    for n in range(1, ACK_COST_LIMIT + 1):
        gdb.execute('stepi', to_string=True)
        pc = reg('$pc')
        if pc == ret and reg('$sp') > sp0:
            return n, pcs
        pcs[pc] = pcs.get(pc, 0) + 1
    return -1, pcs


def by_function(pcs):
    funcs = {}
    for pc, n in pcs.items():
        name = symbol(pc)
        funcs[name] = funcs.get(name, 0) + n
    return sorted(funcs.items(), key=lambda kv: -kv[1])


def main():
    gdb.execute('set pagination off')
    gdb.execute('set confirm off')
    gdb.execute(f'target remote 127.0.0.1:{ACK_COST_PORT}', to_string=True)
    gdb.execute('hbreak tcp_ack', to_string=True)
    with open(ACK_COST_OUT, 'w', encoding='utf-8') as out:
        for _ in range(ACK_COST_CALLS):
            gdb.execute('continue', to_string=True)
            n, pcs = one_call()
            funcs = ' '.join(f'{k}:{v}' for k, v in by_function(pcs))
            out.write(f'{n}\t{funcs}\n')
            out.flush()
    gdb.execute('delete')
    gdb.execute('detach', to_string=True)


main()
