from . import pmns as pmns
from ._errors import InvalidArgumentError as InvalidArgumentError
from ._errors import MNSError as MNSError
from ._errors import NotInvertibleError as NotInvertibleError
from ._errors import NotSupportedError as NotSupportedError
from ._field import Element as Element
from ._field import Field as Field
from ._field import Vector as Vector
from ._field import IntLike
from .rsa import RSA as RSA

__version__: str

def version() -> str: ...
def cpu_features() -> str: ...
def is_probable_prime(n: IntLike, reps: IntLike = ...) -> bool: ...
