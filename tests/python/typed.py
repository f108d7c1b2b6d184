"""Type-checked by mypy --strict against the installed package's stubs
(pip_install.sh): the public classes are typed, so this passes, and a
wrong annotation would not."""
import mns

F = mns.Field(2**255 - 19)
a = F(3) ** 100 * F(7) - 5 + 2
value: int = int(a)
described: str = F.describe
same: bool = a == F(value)
key = mns.RSA(3233, 17, 413, [61, 53], threads=1)
signature: bytes = key.sign(b"message", "sha256")
params = mns.pmns.generate(2**127 - 1, word="u52")
n: int = params.n
version: str = mns.version() + mns.__version__
