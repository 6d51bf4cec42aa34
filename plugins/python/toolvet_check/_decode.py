"""Typed decoding of JSON values into dataclasses, with error paths.

`decode(value, Type, "settings")` turns a parsed JSON value into `Type`
(a dataclass, `list[T]`, `dict[str, T]`, `Optional[T]`, `Union[...]`,
`Literal[...]`, `str`, `int`, `float`, `bool`, `Decimal` or `Any`) and raises
`DecodeError` whose message names the offending path, e.g.
`settings.limits.USD.hard: expected a number, got string "lots"`.

Dataclass fields without a default are required. Keys that are not fields
are errors when `strict` (the default, and always for settings: the Python
counterpart of serde's `deny_unknown_fields`), and are skipped otherwise
(the default for a call's arguments, as in the Rust and JavaScript kits).
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, Union

__all__ = ["DecodeError", "FieldError", "decode", "loads", "describe_value"]

_NONE_TYPE = type(None)


class DecodeError(ValueError):
    """A JSON value does not have the expected shape.

    `str(error)` is `"<path>: <problem>"`, e.g.
    `settings.max_recipients: expected an integer, got string "ten"`.
    """

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class FieldError(ValueError):
    """Raised by a dataclass's `__post_init__` to reject one of its fields:
    `raise FieldError("hard", "must be at least soft (100)")`. The decoder
    reports it under the field's full path, e.g.
    `settings.limits.USD.hard: must be at least soft (100)`.
    """

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_int(text: str) -> Any:
    # CPython refuses to convert integers of more than 4300 digits; such a
    # number is still valid JSON, so keep it exact as a Decimal.
    return int(text) if len(text) <= 4000 else Decimal(text)


def loads(text: str) -> Any:
    """Parse JSON text exactly: numbers with a fraction or an exponent become
    `decimal.Decimal` (never `float`), integers stay `int` (or `Decimal`
    beyond 4000 digits), and the non-standard tokens `NaN`, `Infinity` and
    `-Infinity` are rejected.

    Raises `ValueError` (`json.JSONDecodeError`) on invalid JSON.
    """
    return json.loads(text, parse_float=Decimal, parse_int=_parse_int, parse_constant=_reject_constant)


def describe_value(value: Any) -> str:
    """A short description of a JSON value for error messages: its JSON type,
    and for scalars a (truncated) rendering, e.g. `string "ten"`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float, Decimal)):
        return f"number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {json.dumps(shown)}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, Decimal, float)) and not isinstance(value, bool)


def decode(value: Any, tp: Any, path: str = "value", *, strict: bool = True) -> Any:
    """Convert the parsed JSON `value` into type `tp`.

    Supported types: dataclasses (fields decoded recursively; missing
    required fields are errors, and so are unknown keys at any depth when
    `strict`, otherwise they are skipped), `list[T]`, `dict[str, T]`,
    `Optional[T]` and other `Union`s (first member that fits), `Literal[...]`,
    `str`, `int` (booleans rejected), `float` (from any number),
    `Decimal` (from a number or a decimal string such as `"12.50"`; NaN and
    infinities rejected), `bool` and `Any` (returned as is).

    Raises `DecodeError` naming `path` and the offending nested key or index.
    """
    if tp is Any:
        return value
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)

    if origin is Union or origin is types.UnionType:
        return _decode_union(value, args, path, strict)
    if origin is Literal:
        if value in args and all(type(value) is type(a) for a in args if a == value):
            return value
        choices = ", ".join(json.dumps(a) for a in args)
        raise DecodeError(path, f"expected one of {choices}, got {describe_value(value)}")
    if origin in (list, typing.List):
        if not isinstance(value, list):
            raise DecodeError(path, f"expected an array, got {describe_value(value)}")
        (item_tp,) = args or (Any,)
        return [decode(v, item_tp, f"{path}[{i}]", strict=strict) for i, v in enumerate(value)]
    if origin in (dict, typing.Dict):
        if not isinstance(value, dict):
            raise DecodeError(path, f"expected an object, got {describe_value(value)}")
        key_tp, val_tp = args or (str, Any)
        if key_tp is not str:
            raise TypeError(f"{path}: only dict[str, T] is supported, not {tp!r}")
        return {k: decode(v, val_tp, _join(path, k), strict=strict) for k, v in value.items()}
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _decode_dataclass(value, tp, path, strict)
    if tp is _NONE_TYPE:
        if value is None:
            return None
        raise DecodeError(path, f"expected null, got {describe_value(value)}")
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise DecodeError(path, f"expected a boolean, got {describe_value(value)}")
    if tp is str:
        if isinstance(value, str):
            return value
        raise DecodeError(path, f"expected a string, got {describe_value(value)}")
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
            return int(value)
        raise DecodeError(path, f"expected an integer, got {describe_value(value)}")
    if tp is float:
        if _is_number(value):
            return float(value)
        raise DecodeError(path, f"expected a number, got {describe_value(value)}")
    if tp is Decimal:
        return _decode_decimal(value, path)
    raise TypeError(f"{path}: unsupported type {tp!r} in a settings or arguments declaration")


def _decode_union(value: Any, members: tuple, path: str, strict: bool) -> Any:
    if value is None and _NONE_TYPE in members:
        return None
    candidates = [m for m in members if m is not _NONE_TYPE]
    if not strict:
        # Skipping unknown keys must not pick a looser member over one the
        # value fits exactly: `{"path": .., "content": ..}` is a `Write`, not
        # a `Read` that ignores `content`.
        for member in candidates:
            try:
                return decode(value, member, path, strict=True)
            except DecodeError:
                pass
    errors = []
    for member in candidates:
        try:
            return decode(value, member, path, strict=strict)
        except DecodeError as e:
            errors.append(e)
    if len(errors) == 1:
        raise errors[0]
    # Prefer the error that got deepest into the value: it is the member the
    # author most likely meant.
    deepest = max(errors, key=lambda e: len(e.path))
    if deepest.path != path:
        raise deepest
    names = " or ".join(_type_name(m) for m in candidates)
    raise DecodeError(path, f"expected {names}, got {describe_value(value)}")


def _type_name(tp: Any) -> str:
    if tp is str:
        return "a string"
    if tp in (int,):
        return "an integer"
    if tp in (float, Decimal):
        return "a number"
    if tp is bool:
        return "a boolean"
    origin = typing.get_origin(tp)
    if origin in (list, typing.List):
        return "an array"
    if origin in (dict, typing.Dict) or dataclasses.is_dataclass(tp):
        return "an object"
    return getattr(tp, "__name__", repr(tp))


def _decode_decimal(value: Any, path: str) -> Decimal:
    if isinstance(value, bool):
        raise DecodeError(path, f"expected a number, got {describe_value(value)}")
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        result = Decimal(repr(value))
    elif isinstance(value, Decimal):
        result = value
    elif isinstance(value, str):
        try:
            result = Decimal(value.strip())
        except InvalidOperation:
            raise DecodeError(path, f"expected a decimal number, got {describe_value(value)}") from None
    else:
        raise DecodeError(path, f"expected a number, got {describe_value(value)}")
    if not result.is_finite():
        raise DecodeError(path, f"expected a finite number, got {describe_value(value)}")
    return result


def _decode_dataclass(value: Any, cls: type, path: str, strict: bool) -> Any:
    if not isinstance(value, dict):
        raise DecodeError(path, f"expected an object, got {describe_value(value)}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    if strict:
        for key in value:
            if key not in fields:
                known = ", ".join(sorted(fields)) or "none"
                raise DecodeError(_join(path, key), f"unknown key (known keys: {known})")
    kwargs = {}
    for name, field in fields.items():
        if name in value:
            kwargs[name] = decode(value[name], hints[name], _join(path, name), strict=strict)
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise DecodeError(_join(path, name), "missing required key")
    try:
        return cls(**kwargs)
    except DecodeError:
        raise
    except FieldError as e:
        raise DecodeError(_join(path, e.key), e.problem) from None
    except (ValueError, TypeError) as e:
        # A __post_init__ that validates raises ValueError with its own text.
        raise DecodeError(path, str(e)) from None
