#!/usr/bin/env python3
"""Generates random script cases in the format of cases.txt, for a deeper
comparison with BT.CPP than the hand-written cases (see README.md).

    random_cases.py SEED COUNT > /tmp/c.txt
    /tmp/probe < /tmp/c.txt > /tmp/r.txt
    BTCPP_CASES=/tmp/c.txt BTCPP_RESULTS=/tmp/r.txt go test -run TestAgainstBTCPP ./runtime/script

Every difference must fall under a deviation documented in doc.go.
"""
import random
import sys

LITS = ['0', '1', '2', '7', '-1', '0.5', '2.0', '-2.5', '1e3', '0x10', "'3'", "'abc'",
        "''", "'true'", "'RED'", "'2.5'", "'x y'", 'true', 'false', '(0/0)', '(1/0)']
SEEDED = ['x', 'y', 's', 't', 'b', 'u', 'e']
BINOPS = ['+', '-', '*', '/', '..', '&', '|', '^', '&&', '||', '==', '!=', '<', '<=', '>', '>=']
ASSIGN = [':=', '=', '+=', '-=', '*=', '/=']


def expr(d, names):
    r = random.random()
    if d <= 0 or r < 0.3:
        return random.choice(LITS + names + ['RED', 'z'])
    if r < 0.4:
        return random.choice(['-', '!', '~']) + expr(d - 1, names)
    if r < 0.5:
        return '(' + expr(d - 1, names) + ')'
    if r < 0.6:
        return expr(d - 1, names) + ' ? ' + expr(d - 1, names) + ' : ' + expr(d - 1, names)
    if r < 0.68:
        return random.choice(names + ['w']) + ' ' + random.choice(ASSIGN) + ' ' + expr(d - 1, names)
    if r < 0.78:
        parts = [expr(d - 1, names)]
        for _ in range(random.randint(1, 3)):
            parts += [random.choice(BINOPS[10:]), expr(d - 1, names)]
        return ' '.join(parts)
    return expr(d - 1, names) + ' ' + random.choice(BINOPS) + ' ' + expr(d - 1, names)


def main():
    random.seed(int(sys.argv[1]))
    out = []
    for _ in range(int(sys.argv[2])):
        out += ['reset', 'enum RED 1']
        if random.random() < 0.5:
            # Variables seeded with types, as a node's ports would make them.
            out += ['set x int 3', 'set y double 2.5', 'set s string 42', 'set t string hello',
                    'set b bool true', 'set u uint8 7', 'set e empty']
            script = expr(3, SEEDED)
        else:
            # Variables created by the script itself.
            names = ['p', 'q', 'r']
            stmts = [n + ' := ' + random.choice(LITS) for n in names]
            stmts += [random.choice(names) + ' ' + random.choice(ASSIGN) + ' ' + expr(2, names)
                      for _ in range(random.randint(1, 3))]
            stmts.append(expr(3, names))
            script = '; '.join(stmts)
        out.append(random.choice(['run', 'cond']) + ' ' + script)
    print('\n'.join(out))


if __name__ == '__main__':
    main()
