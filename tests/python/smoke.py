"""What a new user does first, run in a freshly installed environment: a
field product and power against Python's integers, a PKCS#1 v1.5 signature
checked by hand (e-th power against the encoded digest), a gmpy2-free run."""
import hashlib
import random
import sys

import mns
from mns.cli import random_prime

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
rng = random.Random(seed)
print(f"mns {mns.__version__}, C library {mns.version()}, seed {seed}")

p = 2**255 - 19
F = mns.Field(p)
a, b = rng.randrange(p), rng.randrange(p)
assert int(F(a) * F(b)) == a * b % p, "field product"
assert int(F(3) ** 100) == pow(3, 100, p), "field power"

e = 65537
while True:
    q1, q2 = random_prime(1024, rng), random_prime(1024, rng)
    if q1 != q2 and (q1 - 1) % e and (q2 - 1) % e:
        break
n = q1 * q2
d = pow(e, -1, (q1 - 1) * (q2 - 1))
key = mns.RSA(n, e, d, [q1, q2])
msg = b"pip install ./python"
sig = key.sign(msg, "sha256")
k = (n.bit_length() + 7) // 8
info = bytes.fromhex("3031300d060960864801650304020105000420") + hashlib.sha256(msg).digest()
em = b"\x00\x01" + b"\xff" * (k - len(info) - 3) + b"\x00" + info
assert len(sig) == k and pow(int.from_bytes(sig, "big"), e, n) == int.from_bytes(em, "big"), "RSA signature"
print("field product, power and RSA-2048 signature: ok")
