# Pairs for problems/testdata/parasail.tsv: random and mutated DNA and
# protein pairs at awkward sizes (python3 gen.py | /tmp/parasail/drv).
import random
r = random.Random(20261127)
AA = "ARNDCQEGHILKMFPSTWYV"
def word(n, alpha): return "".join(r.choice(alpha) for _ in range(n))
def mutate(s, alpha):
    out = []
    for c in s:
        x = r.random()
        if x < 0.06: out.append(r.choice(alpha))
        elif x < 0.09: pass
        elif x < 0.12: out.append(c + word(r.randint(1, 4), alpha))
        else: out.append(c)
    return "".join(out) or r.choice(alpha)
sizes = [(1,1),(1,7),(7,1),(2,17),(17,2),(31,33),(63,64),(64,65),(100,97),(257,250)]
for alpha, params, algs in [("ACGT", [("dna:2:-3",7,2),("dna:1:-1",3,1),("dna:5:-4",10,1)], ["nw","sw","sg_dx"]),
                             (AA, [("blosum62",11,1),("blosum62",10,2)], ["nw","sw"])]:
    for k, (n, m) in enumerate(sizes):
        a = word(n, alpha)
        b = mutate(a, alpha) if k % 2 == 1 and n > 8 else word(m, alpha)
        for mat, O, G in params:
            for alg in algs:
                print(alg, mat, O, G, a, b)
