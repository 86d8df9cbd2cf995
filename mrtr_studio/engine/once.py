"""`once`: a property computed on first read and then kept on the instance, without a lock.

functools.cached_property takes an RLock on every first read under Python 3.11 (removed in 3.12);
the engine's objects are each used by one request on one event loop, so there is nothing to lock
against. (Measured in-process: within the run-to-run noise of this machine, not a large win.)
"""

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class once(Generic[T]):
    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> "once[T]": ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> "T | once[T]":
        if instance is None:
            return self
        value = self.compute(instance)
        instance.__dict__[self.name] = value  # a plain attribute from now on (this descriptor has no __set__)
        return value
