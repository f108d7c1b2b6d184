import os
from typing import Callable, Optional, Tuple, Union

from ._field import Field, IntLike

class Params:
    p: int
    gamma: int
    rho: int
    norm1: int
    word: str
    n: int
    s: int
    delta: int
    eshape: str
    lam: int
    rho_bits: int
    phi_log2: int
    chunk_bits: int
    sigma_log2: int
    toeplitz_adds: int
    lambda_carried: bool
    w: int
    gen_seconds: float
    @property
    def E(self) -> str: ...
    @property
    def M(self) -> Tuple[int, ...]: ...
    @property
    def Mprime(self) -> Tuple[int, ...]: ...
    def describe(self) -> str: ...
    def verify(self) -> None: ...
    def dumps(self, regenerate: Optional[str] = ...) -> str: ...
    def save(self, path: Union[str, os.PathLike[str]], regenerate: Optional[str] = ...) -> None: ...
    def field(self, delta: Optional[IntLike] = ...) -> Field: ...
    def __eq__(self, other: object) -> bool: ...

def generate(p: IntLike, word: str = ..., s: IntLike = ..., delta: IntLike = ..., n: IntLike = ..., *,
             s_max: IntLike = ..., n_max: IntLike = ..., eshape: str = ..., lambda_max: IntLike = ...,
             toeplitz_adds: IntLike = ..., gamma_tries: IntLike = ..., smooth_n: bool = ..., improve: bool = ...,
             lambda_walk: bool = ..., lambda_carried: bool = ...,
             progress: Optional[Callable[[str, int, float], object]] = ...) -> Params: ...
def loads(text: Union[str, bytes]) -> Params: ...
def load(path: Union[str, os.PathLike[str]]) -> Params: ...
def nopt(p_bits: IntLike, sigma_log2: IntLike = ...) -> int: ...
