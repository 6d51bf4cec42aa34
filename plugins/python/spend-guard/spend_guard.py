"""spend-guard: per-call and per-run amount limits for tools that move money.

For payment, refund, purchase, transfer, charge and checkout tools, reads the
amount and currency from the call's arguments and:

- denies malformed amounts (negative, not a number, more decimal places than
  the currency has) - `spend.malformed-amount`;
- denies (or escalates, per `unknown_currency`) currencies without limits -
  `spend.unknown-currency`;
- denies amounts above the currency's `hard` limit - `spend.over-hard-limit`;
- denies a call that would bring the run's total above `run_hard` -
  `spend.run-limit` (the total sums the run's earlier calls of money tools
  that were allowed or approved, in the same currency, and those still
  `escalated`: see `spent_in_run`);
- escalates amounts above the `soft` limit - `spend.over-soft-limit`;
- escalates (per `missing_amount`) calls without an amount, e.g. a refund
  of "the whole charge" - `spend.missing-amount`.

All arithmetic uses `decimal.Decimal`; JSON numbers are read exactly (see
`toolvet_check.loads`), never through `float`.
"""

from __future__ import annotations

import decimal
import fnmatch
import json
import re
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, Optional

from toolvet_check import (
    Check,
    Context,
    Decision,
    FieldError,
    Outcome,
    PriorCall,
    SettingsError,
    ToolCall,
    ToolFacts,
    ToolInfo,
    allow,
    abstain,
    deny,
    escalate,
    export,
    loads,
    log,
    warm_up_with,
)

# ISO 4217 minor units (decimal places) of the currencies that do not use 2.
_ISO_EXPONENT_EXCEPTIONS = {
    **dict.fromkeys(
        "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF".split(), 0
    ),
    **dict.fromkeys("BHD IQD JOD KWD LYD OMR TND".split(), 3),
    **dict.fromkeys("CLF UYW".split(), 4),
}

# Active ISO 4217 currency codes (plus a few recently withdrawn ones that
# systems still send: ANG, CUC, HRK, SLL, ZWL). All use 2 decimal places
# except those in _ISO_EXPONENT_EXCEPTIONS.
ISO_4217 = frozenset(
    """AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND
    BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU
    CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS
    GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD
    JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL
    MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR
    NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG
    SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY
    TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XCD
    XCG XOF XPF YER ZAR ZMW ZWG ZWL""".split()
)

DEFAULT_TOOLS = [
    "pay",
    "pay_*",
    "*payment*",
    "refund*",
    "*_refund",
    "purchase*",
    "*_purchase",
    "buy_*",
    "transfer_funds*",
    "transfer_money*",
    "*_transfer",
    "send_money*",
    "charge",
    "charge_*",
    "*_charge",
    "checkout*",
    "*_checkout",
    "place_order*",
]
"""Default tool-name globs: tools that move money."""

DEFAULT_EXCLUDE_TOOLS = [
    "get_*",
    "list_*",
    "search_*",
    "find_*",
    "lookup_*",
    "describe_*",
    "view_*",
    "read_*",
    "*_status",
    "*_history",
    "*_methods",
]
"""Default globs of read-only tools the check abstains on even though they
match `DEFAULT_TOOLS` (e.g. `get_payment`, `payment_status`)."""

ELIDED_KEY = "toolvet.elided"
"""The key a front end adds to arguments it elided to fit the run's history
(`toolvet::history_fit`); each value it left out became a text starting
`toolvet.elided:`."""

_CODE = re.compile(r"^[A-Z][A-Z0-9]{1,9}$")
_MAJOR = re.compile(r"^(-)?(\d+)(?:\.(\d+))?$")
_MINOR = re.compile(r"^(-)?(\d+)$")

# Sums and unit conversions are exact far beyond any real amount.
_CTX = decimal.Context(prec=1000, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, traps=[decimal.InvalidOperation])

Action = Literal["deny", "escalate", "allow"]


@dataclass
class Limit:
    """Limits for one currency, in major units (e.g. dollars). Each is
    optional; an amount equal to a limit is within it."""

    soft: Optional[Decimal] = None
    """Escalate a call whose amount is above this."""
    hard: Optional[Decimal] = None
    """Deny a call whose amount is above this."""
    run_hard: Optional[Decimal] = None
    """Deny a call that would bring the run's total above this."""
    decimals: Optional[int] = None
    """Decimal places of the currency; default from ISO 4217 (required for
    other codes, e.g. `USDC`)."""

    def __post_init__(self) -> None:
        for key in ("soft", "hard", "run_hard"):
            value = getattr(self, key)
            if value is not None and value < 0:
                raise FieldError(key, f"must not be negative (got {value})")
        if self.soft is not None and self.hard is not None and self.soft > self.hard:
            raise FieldError("soft", f"must not be above hard ({self.soft} > {self.hard})")
        if self.hard is not None and self.run_hard is not None and self.hard > self.run_hard:
            raise FieldError("hard", f"must not be above run_hard ({self.hard} > {self.run_hard})")
        if self.decimals is not None and not 0 <= self.decimals <= 18:
            raise FieldError("decimals", f"must be between 0 and 18 (got {self.decimals})")


def _default_limits() -> dict[str, Limit]:
    return {
        code: Limit(soft=Decimal(100), hard=Decimal(1000), run_hard=Decimal(2000))
        for code in ("USD", "EUR", "GBP")
    }


@dataclass
class Settings:
    """spend-guard settings; see the README for each key."""

    limits: dict[str, Limit] = field(default_factory=_default_limits)
    amount_fields: list[str] = field(default_factory=lambda: ["amount"])
    minor_amount_fields: list[str] = field(default_factory=list)
    currency_fields: list[str] = field(default_factory=lambda: ["currency"])
    default_currency: Optional[str] = None
    unknown_currency: Action = "deny"
    missing_amount: Action = "escalate"
    history_tools: list[str] = field(default_factory=lambda: list(DEFAULT_TOOLS))
    exclude_tools: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE_TOOLS))


class Malformed(ValueError):
    """An amount or currency that cannot be read; the message says why."""


def decimal_places(value: Decimal) -> int:
    """Significant decimal places of `value`: `12.50` -> 1, `12.505` -> 3,
    `1E+3` -> 0. Exact for any size (no context rounding)."""
    _, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int) or exponent >= 0 or not any(digits):
        return 0
    trailing = 0
    for d in reversed(digits):
        if d != 0 or trailing >= -exponent:
            break
        trailing += 1
    return -exponent - trailing


def currency_decimals(code: str, limit: Optional[Limit]) -> Optional[int]:
    """Decimal places of currency `code`: the configured `decimals`, else
    ISO 4217's, else None (unknown)."""
    if limit is not None and limit.decimals is not None:
        return limit.decimals
    if code in ISO_4217:
        return _ISO_EXPONENT_EXCEPTIONS.get(code, 2)
    return None


def fmt(amount: Decimal) -> str:
    """An amount for messages, without exponent notation (`1E+3` -> `1000`)."""
    text = format(amount, "f")
    return text if len(text) <= 32 else format(amount, ".6E")


def parse_major(value: Any, code: str, decimals: Optional[int]) -> Decimal:
    """An amount in major units (e.g. `12.34` dollars) from a JSON number or
    a decimal string such as `"12.34"`.

    Raises `Malformed` for booleans, null, arrays, objects, strings that are
    not plain decimals (`"1,000"`, `"$5"`, `"NaN"`, `"1e3"`), negative
    amounts, non-finite numbers and amounts with more significant decimal
    places than `decimals` (when known).
    """
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise Malformed(f"the amount must be a number or a decimal string, not {_kind(value)}")
    if isinstance(value, int):
        amount = Decimal(value)
    elif isinstance(value, Decimal):
        amount = value
    elif isinstance(value, float):  # only natively; the kit never produces floats
        amount = Decimal(repr(value))
    elif isinstance(value, str):
        m = _MAJOR.match(value.strip())
        if not m:
            raise Malformed(
                f"the amount {_quote(value)} is not a plain decimal number; write it like \"1234.50\" "
                "(no currency symbols, thousands separators or exponents)"
            )
        amount = Decimal(value.strip())
    else:
        raise Malformed(f"the amount must be a number or a decimal string, not {_kind(value)}")
    if not amount.is_finite():
        raise Malformed("the amount must be a finite number")
    if amount < 0:
        raise Malformed(f"the amount {fmt(amount)} {code} is negative; amounts must be zero or more")
    if decimals is not None and decimal_places(amount) > decimals:
        raise Malformed(
            f"the amount {fmt(amount)} has more decimal places than {code} allows ({decimals})"
        )
    return amount


def parse_minor(value: Any, code: str, decimals: Optional[int]) -> Optional[Decimal]:
    """An amount in minor units (e.g. `1234` cents) as major units
    (`12.34`), or None when the currency's decimal places are unknown (the
    value is still validated).

    Raises `Malformed` for anything but a non-negative whole number (a JSON
    integer, an integral number such as `1200.0`, or a digit string).
    """
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise Malformed(f"the amount in minor units must be a whole number, not {_kind(value)}")
    if isinstance(value, int):
        units = Decimal(value)
    elif isinstance(value, (Decimal, float)):
        units = value if isinstance(value, Decimal) else Decimal(repr(value))
        if not units.is_finite() or decimal_places(units) > 0:
            raise Malformed(f"the amount in minor units must be a whole number, not {fmt(units)}")
    elif isinstance(value, str):
        m = _MINOR.match(value.strip())
        if not m:
            raise Malformed(f"the amount in minor units {_quote(value)} is not a whole number")
        units = Decimal(value.strip())
    else:
        raise Malformed(f"the amount in minor units must be a whole number, not {_kind(value)}")
    if units < 0:
        raise Malformed(f"the amount {fmt(units)} (minor units of {code}) is negative; amounts must be zero or more")
    if decimals is None:
        return None
    return _CTX.scaleb(units, -decimals)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (int, Decimal, float)):
        return fmt(Decimal(value) if not isinstance(value, float) else Decimal(repr(value)))
    return type(value).__name__


def _quote(text: str) -> str:
    shown = text if len(text) <= 24 else text[:21] + "..."
    return '"' + shown.replace('"', "'") + '"'


def fold(key: str) -> str:
    """A key as the host compares keys (`toolvet::fold`): NFKC, upper- then
    lower-case, without white space, format (invisible) characters or the
    combining dot of `İ`. `Amount`, `AMOUNT` and `ａｍｏｕｎｔ` fold alike;
    the host refuses two such keys in one object, so at most one matches."""
    text = unicodedata.normalize("NFKC", key).upper().lower()
    return "".join(
        c for c in text
        if not c.isspace() and unicodedata.category(c) != "Cf" and c != "\u0307"
    )


def lookup(args: dict, path: str) -> tuple[bool, Any]:
    """The value at a dotted `path` (`amount`, `amount.value`) in the
    arguments, each part matched by its fold (a tool may read keys in any
    case): `(True, value)` when present (even if null), else
    `(False, None)`."""
    node: Any = args
    for part in path.split("."):
        if not isinstance(node, dict):
            return False, None
        if part in node:
            node = node[part]
            continue
        want = fold(part)
        found = [k for k in node if fold(k) == want]
        if not found:
            return False, None
        node = node[found[0]]
    return True, node


def catalogued_without_payment(name: str, facts: Optional[ToolFacts]) -> bool:
    """Whether the host's `facts` come from a catalog entry named exactly
    `name` (source `("catalog", "CATALOG/NAME@VERSION")`) whose effects
    include no `payment`: the tool is known, and known not to move money,
    whatever its name has in common with one that does."""
    if facts is None or "payment" in facts.effects:
        return False
    kind, where = facts.source
    if kind != "catalog" or not isinstance(where, str):
        return False
    entry = where.rpartition("@")[0] or where
    return entry.partition("/")[2] == name


def _matches(name: str, globs: list[str]) -> bool:
    lowered = name.lower()
    return any(fnmatch.fnmatchcase(lowered, g.lower()) for g in globs)


@dataclass
class Spend:
    """What a call spends: the amount in major units (None when unknown)
    and the currency code (None when not given and no default)."""

    amount: Optional[Decimal]
    currency: Optional[str]
    has_amount: bool


class SpendGuard(Check):
    """Per-call and per-run amount limits for money-moving tools."""

    name = "spend-guard"
    version = "0.1.0"
    description = "Limits the amounts payment, refund, purchase and transfer tools move, per call and per run"
    tools = DEFAULT_TOOLS
    # Any tool the host finds moving money, whatever it is called.
    effects = ("payment",)
    Settings = Settings

    def __init__(self, settings: Settings) -> None:
        limits: dict[str, Limit] = {}
        for code, limit in settings.limits.items():
            norm = code.strip().upper()
            if not _CODE.match(norm):
                raise SettingsError(f"settings.limits.{code}: not a currency code (expected e.g. USD, EUR, USDC)")
            if norm in limits:
                raise SettingsError(f"settings.limits.{code}: {norm} is listed twice")
            if currency_decimals(norm, limit) is None:
                raise SettingsError(
                    f"settings.limits.{code}.decimals: required, {norm} is not an ISO 4217 currency"
                )
            limits[norm] = limit
        for key in ("amount_fields", "minor_amount_fields", "currency_fields"):
            for i, path in enumerate(getattr(settings, key)):
                if not path or any(not part for part in path.split(".")):
                    raise SettingsError(f"settings.{key}[{i}]: not an argument name or dotted path")
        if not settings.amount_fields and not settings.minor_amount_fields:
            raise SettingsError("settings.amount_fields: at least one of amount_fields and minor_amount_fields is needed")
        default = None
        if settings.default_currency is not None:
            default = settings.default_currency.strip().upper()
            if not _CODE.match(default):
                raise SettingsError("settings.default_currency: not a currency code (expected e.g. USD)")
        super().__init__(settings)
        self.limits = limits
        self.default_currency = default

    def warm_up(self) -> None:
        """Vets a payment in each configured currency, a refund in minor
        units, a call without an amount and one with a run's history, so that
        the tool-glob, regex and decimal caches the first call would fill are
        in the snapshot."""
        major = {"amount": "25.00", "invoice": "INV-1042"}
        calls = [("pay_invoice", {**major, "currency": code}) for code in sorted(self.limits)]
        calls += [
            ("refund_charge", {"amount_cents": 1250, "currency": "USD"}),
            ("create_purchase", {"item": "laptop"}),
            ("list_invoices", {"status": "open"}),
        ]
        warm_up_with(self, calls)
        history = [
            PriorCall("pay_invoice", json.dumps({**major, "currency": "USD"}), Outcome.ALLOWED),
            PriorCall("transfer_funds", json.dumps({**major, "currency": "USD"}), Outcome.APPROVED),
        ]
        ctx = Context(run_id="warm-up", history=history)
        self.check(ToolCall("pay_invoice", json.dumps({**major, "currency": "USD"})), ToolInfo(), ctx)

    def check(self, call: ToolCall, tool: ToolInfo, ctx: Context) -> Decision:
        if _matches(call.name, self.settings.exclude_tools):
            return abstain()
        # The host's facts (contract 0.2) add calls (any tool they find
        # moving money) and amount fields. They take a call away from the
        # name globs only as a catalog entry of the very same name that
        # moves no money (`git_checkout`, `create_payment_link`): a name
        # can be made to end in a catalogued read (`pay_invoice.get_me`,
        # review s21 F1), and an inferred reading is no more than the
        # globs' own.
        facts = tool.facts
        if catalogued_without_payment(call.name, facts):
            return abstain()
        try:
            spend = self.spend_of(call.json, facts)
        except Malformed as e:
            return deny("spend.malformed-amount", f"{e}.")
        code = spend.currency
        if not spend.has_amount:
            return self._act(
                self.settings.missing_amount,
                "spend.missing-amount",
                f"`{call.name}` gives no amount (looked for: {self._amount_names()}), so it cannot be checked "
                "against the spending limits; give the amount explicitly, or a person must approve it.",
            )
        if code is None:
            return self._act(
                self.settings.unknown_currency,
                "spend.unknown-currency",
                f"no currency given (looked for: {', '.join(self.settings.currency_fields)}); say which "
                f"currency the amount is in ({self._known()}).",
            )
        limit = self.limits.get(code)
        if limit is None:
            return self._act(
                self.settings.unknown_currency,
                "spend.unknown-currency",
                f"{code} has no spending limits configured; accepted currencies: {self._known()}.",
            )
        amount = spend.amount
        assert amount is not None  # decimals are known for every configured currency
        if limit.hard is not None and amount > limit.hard:
            return deny(
                "spend.over-hard-limit",
                f"{fmt(amount)} {code} is above the per-call limit of {fmt(limit.hard)} {code}; "
                f"the agent may move at most {fmt(limit.hard)} {code} in one call, larger amounts need a person.",
            )
        if limit.run_hard is not None:
            unknown = self.unknown_in_run(call, ctx)
            if unknown:
                return deny(
                    "spend.run-limit",
                    f"this run's total is unknown: the arguments of an earlier `{unknown}` call were too "
                    "large for the front end to keep whole and its amount or currency was elided, so "
                    f"{fmt(amount)} {code} cannot be checked against the run limit of "
                    f"{fmt(limit.run_hard)} {code}; a new run starts with a known total.",
                )
            spent = self.spent_in_run(call, ctx, code)
            total = _CTX.add(spent, amount)
            if total > limit.run_hard:
                left = max(_CTX.subtract(limit.run_hard, spent), Decimal(0))
                return deny(
                    "spend.run-limit",
                    f"{fmt(amount)} {code} would bring this run's total to {fmt(total)} {code}, above the "
                    f"run limit of {fmt(limit.run_hard)} {code} ({fmt(spent)} {code} already moved); "
                    f"at most {fmt(left)} {code} more may be moved in this run.",
                )
        if limit.soft is not None and amount > limit.soft:
            return escalate(
                "spend.over-soft-limit",
                f"{fmt(amount)} {code} is above the approval threshold of {fmt(limit.soft)} {code} "
                f"for `{call.name}`; a person must approve it.",
            )
        return allow()

    def spend_of(self, args: dict, facts=None) -> Spend:
        """The amount and currency of a call's (or a prior call's) arguments.

        With the host's `facts` (contract 0.2), the `currency` role values
        stand in for a currency no configured field gives, and the `amount`
        role values (major units) for amounts none gives: a tool that names
        them `value` and `asset` is read too.

        Raises `Malformed` for an unreadable amount or currency, or when two
        currency fields (or role values) disagree. When several amount
        fields are present the largest counts.
        """
        code = self._currency(args)
        if code is None and facts is not None:
            found = {c.strip().upper() for c in facts.values_of("currency") if c.strip()}
            if len(found) > 1:
                raise Malformed(f"the currency arguments disagree ({', '.join(sorted(found))})")
            if found and _CODE.match(next(iter(found))):
                code = found.pop()
        limit = self.limits.get(code) if code else None
        decimals = currency_decimals(code, limit) if code else None
        amounts: list[Optional[Decimal]] = []
        shown_code = code or "the currency"
        for path in self.settings.amount_fields:
            present, value = lookup(args, path)
            if present:
                amounts.append(parse_major(value, shown_code, decimals))
        for path in self.settings.minor_amount_fields:
            present, value = lookup(args, path)
            if present:
                amounts.append(parse_minor(value, shown_code, decimals))
        if not amounts and facts is not None:
            for text in facts.values_of("amount"):
                try:
                    value = loads(text)
                except ValueError:
                    value = text
                amounts.append(parse_major(value, shown_code, decimals))
        known = [a for a in amounts if a is not None]
        return Spend(max(known) if known else None, code, bool(amounts))

    def _counted(self, call: ToolCall, ctx: Context) -> list[PriorCall]:
        """The run's earlier calls that count toward its totals: of the same
        tool or of a tool matching `history_tools` (and not `exclude_tools`),
        that ran (allowed or approved) or may have run (`escalated`).

        An `escalated` call counts, pessimistically: a front end records a
        call it answered `ask` (the person approves or refuses it in the
        agent's own prompt, e.g. Claude Code's) as escalated and never
        learns which; a person approving calls one by one does not expect to
        lift the run's hard limit. One held for a reviewer that was later
        approved or rejected is brought up to date from the ledger by the
        host. A pending one still counts until then."""
        counted = []
        for prior in ctx.history:
            if not (prior.ran or prior.outcome == Outcome.ESCALATED):
                continue
            if prior.name != call.name and not _matches(prior.name, self.settings.history_tools):
                continue
            if _matches(prior.name, self.settings.exclude_tools):
                continue
            counted.append(prior)
        return counted

    def unknown_in_run(self, call: ToolCall, ctx: Context) -> Optional[str]:
        """The name of an earlier counted call whose arguments the front end
        elided (`toolvet.elided`: too large to keep whole) and whose amount
        or currency did not survive, or None. Its amount is unknown, so the
        run's total is."""
        for prior in self._counted(call, ctx):
            args = prior.json
            if not isinstance(args, dict) or ELIDED_KEY not in args:
                continue
            try:
                spend = self.spend_of(args)
            except Malformed:
                return prior.name
            if spend.amount is None or spend.currency is None:
                return prior.name
        return None

    def spent_in_run(self, call: ToolCall, ctx: Context, code: str) -> Decimal:
        """The sum, in `code`, of the run's earlier calls that count
        (`_counted`: ran, or escalated). Earlier calls whose amount cannot be
        read are skipped (and logged); elided ones are `unknown_in_run`."""
        total = Decimal(0)
        for prior in self._counted(call, ctx):
            try:
                spend = self.spend_of(prior.json)
            except Malformed as e:
                log.warn(f"skipping an earlier `{prior.name}` call whose amount is unreadable: {e}")
                continue
            if spend.currency == code and spend.amount is not None:
                total = _CTX.add(total, spend.amount)
        return total

    def _currency(self, args: dict) -> Optional[str]:
        found: Optional[str] = None
        for path in self.settings.currency_fields:
            present, value = lookup(args, path)
            if not present or value is None:
                continue
            if not isinstance(value, str) or not _CODE.match(value.strip().upper()):
                shown = _quote(value) if isinstance(value, str) else _kind(value)
                raise Malformed(f"the currency {shown} is not a currency code (expected e.g. USD, EUR)")
            code = value.strip().upper()
            if found is not None and code != found:
                raise Malformed(f"the call names two currencies ({found} and {code})")
            found = code
        return found or self.default_currency

    def _act(self, action: str, rule: str, message: str) -> Decision:
        if action == "deny":
            return deny(rule, message)
        if action == "escalate":
            return escalate(rule, message)
        return allow()

    def _known(self) -> str:
        return ", ".join(sorted(self.limits)) or "none configured"

    def _amount_names(self) -> str:
        return ", ".join(self.settings.amount_fields + self.settings.minor_amount_fields)


Check = export(SpendGuard)
