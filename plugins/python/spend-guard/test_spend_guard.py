"""Unit tests of spend-guard's parsing and limits, run natively:
`python3 -m unittest discover -s plugins/python/spend-guard`."""

from __future__ import annotations

import json
import sys
import unittest
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from spend_guard import (  # noqa: E402
    Malformed,
    SpendGuard,
    decimal_places,
    lookup,
    parse_major,
    parse_minor,
)
from toolvet_check import (  # noqa: E402
    Context,
    Outcome,
    PriorCall,
    RoleValue,
    SettingsError,
    ToolCall,
    ToolFacts,
    ToolInfo,
    loads,
)


def run(guard: SpendGuard, name: str, args: dict | str, history: list | None = None):
    text = args if isinstance(args, str) else json.dumps(args)
    ctx = Context(history=[PriorCall(n, json.dumps(a), o) for n, a, o in history or []])
    return guard.check(ToolCall(name, text), ToolInfo(), ctx)


class DecimalPlacesTest(unittest.TestCase):
    def test_counts_significant_places(self) -> None:
        cases = {"12": 0, "12.5": 1, "12.50": 1, "12.500": 1, "12.505": 3, "0.000": 0, "1E+3": 0,
                 "1.0E-7": 7, "100": 0, "0.01": 2}
        for text, places in cases.items():
            self.assertEqual(decimal_places(Decimal(text)), places, text)

    def test_exact_beyond_context_precision(self) -> None:
        self.assertEqual(decimal_places(Decimal("12345678901234567890123456789012345.125")), 3)


class ParseTest(unittest.TestCase):
    def test_major_accepts_numbers_and_plain_strings(self) -> None:
        self.assertEqual(parse_major(5, "USD", 2), Decimal(5))
        self.assertEqual(parse_major(Decimal("5.10"), "USD", 2), Decimal("5.10"))
        self.assertEqual(parse_major(" 49.99 ", "USD", 2), Decimal("49.99"))
        self.assertEqual(parse_major("7", "JPY", 0), Decimal(7))
        self.assertEqual(parse_major(Decimal("1E+3"), "JPY", 0), Decimal(1000))

    def test_major_rejects(self) -> None:
        bad = [True, None, [], {}, "1,000", "$5", "NaN", "inf", "1e3", ".5", "5.", "", "-3", "+3", "12 USD",
               Decimal("-0.01"), -1, Decimal("1.005")]
        for value in bad:
            with self.assertRaises(Malformed, msg=repr(value)):
                parse_major(value, "USD", 2)

    def test_major_without_known_decimals_skips_the_places_check(self) -> None:
        self.assertEqual(parse_major("1.123456789", "XYZ", None), Decimal("1.123456789"))

    def test_minor_converts_to_major_units(self) -> None:
        self.assertEqual(parse_minor(1234, "USD", 2), Decimal("12.34"))
        self.assertEqual(parse_minor("500", "JPY", 0), Decimal(500))
        self.assertEqual(parse_minor(Decimal("1200.0"), "KWD", 3), Decimal("1.2"))
        self.assertIsNone(parse_minor(99, "XYZ", None))

    def test_minor_rejects(self) -> None:
        for value in [12.5, Decimal("12.5"), "12.5", "-1", -1, True, None, "ten"]:
            with self.assertRaises(Malformed, msg=repr(value)):
                parse_minor(value, "USD", 2)

    def test_lookup_dotted_paths(self) -> None:
        args = loads('{"amount": {"value": "10.00", "currency": "EUR"}, "n": null}')
        self.assertEqual(lookup(args, "amount.value"), (True, "10.00"))
        self.assertEqual(lookup(args, "n"), (True, None))
        self.assertEqual(lookup(args, "amount.missing"), (False, None))
        self.assertEqual(lookup(args, "n.value"), (False, None))

    def test_lookup_matches_keys_in_any_case_and_unicode_form(self) -> None:
        # A tool that reads keys case-insensitively pays `Amount` (issue 29,
        # fourth review): the check reads it as `amount`.
        self.assertEqual(lookup({"Amount": 5000}, "amount"), (True, 5000))
        self.assertEqual(lookup({"AMOUNT": {"Value": "9"}}, "amount.value"), (True, "9"))
        self.assertEqual(lookup({"\uff41mount": 7}, "amount"), (True, 7))
        self.assertEqual(lookup({"amo\u200bunt": 8}, "amount"), (True, 8))
        self.assertEqual(lookup({"amounts": 1}, "amount"), (False, None))


class SpendGuardTest(unittest.TestCase):
    def setUp(self) -> None:
        self.guard = SpendGuard.from_settings_json("{}")

    def test_defaults(self) -> None:
        g = self.guard
        self.assertEqual(run(g, "pay", {"amount": 100, "currency": "USD"}).kind, "allow")
        self.assertEqual(run(g, "pay", {"amount": "100.01", "currency": "USD"}).rule, "spend.over-soft-limit")
        self.assertEqual(run(g, "pay", {"amount": 1000, "currency": "EUR"}).rule, "spend.over-soft-limit")
        self.assertEqual(run(g, "pay", {"amount": 1001, "currency": "GBP"}).rule, "spend.over-hard-limit")
        self.assertEqual(run(g, "pay", {"amount": 5, "currency": "JPY"}).rule, "spend.unknown-currency")
        self.assertEqual(run(g, "get_payment", {"id": "x"}).kind, "abstain")
        self.assertEqual(run(g, "refund", {"charge": "ch_1"}).rule, "spend.missing-amount")

    def test_run_total_counts_only_calls_that_ran(self) -> None:
        g = self.guard
        hist = [("pay", {"amount": 900, "currency": "USD"}, Outcome.APPROVED),
                ("refund_payment", {"amount": "950.00", "currency": "usd"}, Outcome.ALLOWED),
                ("pay", {"amount": 900, "currency": "USD"}, Outcome.DENIED),
                ("pay", {"amount": 900, "currency": "EUR"}, Outcome.ALLOWED),
                ("pay", {"amount": "bogus", "currency": "USD"}, Outcome.ALLOWED),
                ("list_payments", {"amount": 900, "currency": "USD"}, Outcome.ALLOWED)]
        self.assertEqual(g.spent_in_run(ToolCall("pay"), Context(history=[PriorCall(n, json.dumps(a), o) for n, a, o in hist]), "USD"), Decimal("1850.00"))
        self.assertEqual(run(g, "pay", {"amount": 150, "currency": "USD"}, hist).kind, "escalate")
        d = run(g, "pay", {"amount": 151, "currency": "USD"}, hist)
        self.assertEqual(d.rule, "spend.run-limit")
        self.assertIn("at most 150.00 USD more", d.message)

    def test_escalated_calls_count_pessimistically(self) -> None:
        # Fifth review F5: a hook answers `ask`, the person approves each
        # call in the agent, and the history keeps them `escalated`: 2700 USD
        # moved, and a 99 USD call was allowed.
        g = self.guard
        hist = [("pay_invoice", {"amount": a, "currency": "USD"}, Outcome.ESCALATED) for a in (900, 850, 950)]
        ctx = Context(history=[PriorCall(n, json.dumps(a), o) for n, a, o in hist])
        self.assertEqual(g.spent_in_run(ToolCall("pay_invoice"), ctx, "USD"), Decimal(2700))
        d = run(g, "pay_invoice", {"amount": 99, "currency": "USD", "invoice": "small"}, hist)
        self.assertEqual((d.kind, d.rule), ("deny", "spend.run-limit"))
        self.assertIn("2799 USD", d.message)
        # Rejected ones still do not count.
        hist = [("pay_invoice", {"amount": 1900, "currency": "USD"}, Outcome.REJECTED)]
        self.assertEqual(run(g, "pay_invoice", {"amount": 99, "currency": "USD"}, hist).kind, "allow")

    def test_an_elided_amount_makes_the_run_total_unknown(self) -> None:
        g = self.guard
        elided = {"toolvet.elided": {"bytes": 950000, "sha256": "ab"}}
        # The amount survived elision (a large memo was elided): counted.
        kept = {"amount": 1950, "currency": "USD", "memo": "toolvet.elided: 950000 bytes, sha256 ab", **elided}
        self.assertEqual(run(g, "pay", {"amount": 99, "currency": "USD"}, [("pay", kept, Outcome.ALLOWED)]).rule,
                         "spend.run-limit")
        # The amount did not: the total is unknown, denied.
        for lost in ({"currency": "USD", **elided},
                     {"amount": "toolvet.elided: 12 bytes, sha256 cd", "currency": "USD", **elided},
                     elided):
            for outcome in (Outcome.ALLOWED, Outcome.ESCALATED):
                d = run(g, "pay", {"amount": 5, "currency": "USD"}, [("pay", lost, outcome)])
                self.assertEqual((d.kind, d.rule), ("deny", "spend.run-limit"), (lost, outcome))
                self.assertIn("total is unknown", d.message)
            # A call that did not run is not counted, elided or not.
            self.assertEqual(run(g, "pay", {"amount": 5, "currency": "USD"}, [("pay", lost, Outcome.DENIED)]).kind,
                             "allow")

    def test_same_tool_counts_even_outside_history_tools(self) -> None:
        g = SpendGuard.from_settings_json('{"history_tools": []}')
        hist = [("stripe_charge", {"amount": 1900, "currency": "USD"}, Outcome.APPROVED),
                ("pay", {"amount": 1900, "currency": "USD"}, Outcome.APPROVED)]
        self.assertEqual(run(g, "stripe_charge", {"amount": 200, "currency": "USD"}, hist).rule, "spend.run-limit")

    def test_nested_amounts_and_minor_units(self) -> None:
        g = SpendGuard.from_settings_json(json.dumps({
            "amount_fields": ["amount.value"], "currency_fields": ["amount.currency_code"],
            "minor_amount_fields": ["amount_minor"],
            "limits": {"KWD": {"soft": 10, "hard": 100}},
        }))
        self.assertEqual(run(g, "pay", {"amount": {"value": "9.999", "currency_code": "KWD"}}).kind, "allow")
        self.assertEqual(run(g, "pay", {"amount": {"value": "10.001", "currency_code": "kwd"}}).rule, "spend.over-soft-limit")
        self.assertEqual(run(g, "pay", {"amount": {"value": "1.0001", "currency_code": "KWD"}}).rule, "spend.malformed-amount")
        self.assertEqual(run(g, "pay", {"amount": {"currency_code": "KWD"}, "amount_minor": 100001}).rule, "spend.over-hard-limit")

    def test_conflicting_currencies_are_malformed(self) -> None:
        g = SpendGuard.from_settings_json('{"currency_fields": ["currency", "ccy"]}')
        self.assertEqual(run(g, "pay", {"amount": 1, "currency": "USD", "ccy": "EUR"}).rule, "spend.malformed-amount")
        self.assertEqual(run(g, "pay", {"amount": 1, "currency": "USD", "ccy": "usd"}).kind, "allow")

    def test_default_currency(self) -> None:
        g = SpendGuard.from_settings_json('{"default_currency": "eur"}')
        self.assertEqual(run(g, "pay", {"amount": 150}).rule, "spend.over-soft-limit")
        self.assertIn("EUR", run(g, "pay", {"amount": 150}).message)

    def test_settings_errors_name_the_key(self) -> None:
        cases = {
            '{"limits": {"US$": {"hard": 1}}}': "settings.limits.US$: not a currency code (expected e.g. USD, EUR, USDC)",
            '{"limits": {"BTC": {"hard": 1}}}': "settings.limits.BTC.decimals: required, BTC is not an ISO 4217 currency",
            '{"limits": {"USD": {"hard": -1}}}': "settings.limits.USD.hard: must not be negative (got -1)",
            '{"limits": {"USD": {"hard": 10, "run_hard": 5}}}': "settings.limits.USD.hard: must not be above run_hard (10 > 5)",
            '{"limits": {"usd": {}, "USD": {}}}': "settings.limits.USD: USD is listed twice",
            '{"amount_fields": ["a..b"]}': "settings.amount_fields[0]: not an argument name or dotted path",
            '{"amount_fields": []}': "settings.amount_fields: at least one of amount_fields and minor_amount_fields is needed",
            '{"default_currency": "dollars!"}': "settings.default_currency: not a currency code (expected e.g. USD)",
            '{"missing_amount": "ignore"}': 'settings.missing_amount: expected one of "deny", "escalate", "allow", got string "ignore"',
        }
        for text, message in cases.items():
            with self.assertRaises(SettingsError, msg=text) as cm:
                SpendGuard.from_settings_json(text)
            self.assertEqual(str(cm.exception), message)


if __name__ == "__main__":
    unittest.main()



def _facts(effects, roles=(), source=("catalog", "test/tool@2026-12")) -> ToolInfo:
    """What a 0.2 host hands the check: `effects` and `(role, pointer, value)` triples."""
    return ToolInfo(
        facts=ToolFacts(effects=frozenset(effects), roles=tuple(RoleValue(*r) for r in roles), source=source)
    )


class FactsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.guard = SpendGuard.from_settings_json("{}")

    def check(self, name: str, args: dict, tool: ToolInfo):
        return self.guard.check(ToolCall(name, json.dumps(args)), tool, Context())

    def test_the_hosts_facts_route_any_payment_and_give_its_amount(self) -> None:
        # A tool no glob names: the facts say it pays, and where the amount is.
        tool = _facts({"payment", "outbound-message"}, [("amount", "/value", "5000"), ("currency", "/asset", "USD")])
        d = self.check("wallet_send_token", {"value": "5000", "asset": "USD"}, tool)
        self.assertEqual((d.kind, d.rule), ("deny", "spend.over-hard-limit"), d)
        tool = _facts({"payment"}, [("amount", "/value", "20"), ("currency", "/asset", "usd")])
        d = self.check("wallet_send_token", {"value": 20, "asset": "usd"}, tool)
        self.assertEqual(d.kind, "allow", d)
        # A payment with no amount anywhere is held, as before.
        d = self.check("wallet_send_token", {}, _facts({"payment"}))
        self.assertEqual(d.rule, "spend.missing-amount", d)
        # Currencies that disagree are not guessed between.
        tool = _facts({"payment"}, [("amount", "/v", "1"), ("currency", "/a", "USD"), ("currency", "/b", "EUR")])
        self.assertEqual(self.check("x", {}, tool).rule, "spend.malformed-amount")

    def test_facts_never_take_a_call_away_from_the_name_globs(self) -> None:
        # Not the catalog's word either: a name can be made to look like a
        # catalogued read (`pay_invoice.get_me`).
        for source in [("catalog", "github-mcp-server/get_me@2026-12"), ("inferred", ['name verb "get": read'])]:
            d = self.check("pay_invoice", {"amount": 50000, "currency": "USD"}, _facts({"read"}, source=source))
            self.assertEqual(d.rule, "spend.over-hard-limit", d)

    def test_a_catalog_entry_of_the_same_name_that_moves_no_money_is_left_alone(self) -> None:
        # mcp-git's `git_checkout` and Stripe's `create_payment_link` match
        # the globs (`*_checkout`, `*payment*`) but move no money.
        for name, entry in [("git_checkout", "mcp-git"), ("create_payment_link", "stripe-agent-toolkit")]:
            tool = _facts({"write"}, source=("catalog", f"{entry}/{name}@2026-12"))
            self.assertEqual(self.check(name, {"branch_name": "main"}, tool).kind, "abstain", name)
        # The same entry that says it pays, another entry's name, a name
        # that only ends in the entry's, or an inferred reading: the globs
        # still decide.
        cases = [
            ("git_checkout", {"payment"}, ("catalog", "mcp-git/git_checkout@2026-12")),
            ("git_checkout", {"write"}, ("catalog", "mcp-git/git_commit@2026-12")),
            ("mcp__git__git_checkout", {"write"}, ("catalog", "mcp-git/git_checkout@2026-12")),
            ("git_checkout", {"write"}, ("inferred", ['name verb "checkout": payment'])),
            ("git_checkout", {"write"}, ("declared", None)),
        ]
        for name, effects, source in cases:
            d = self.check(name, {}, _facts(effects, source=source))
            self.assertEqual(d.rule, "spend.missing-amount", (name, source, d))
        self.assertEqual(self.check("git_checkout", {}, ToolInfo()).rule, "spend.missing-amount")

    def test_the_check_declares_the_payment_effect(self) -> None:
        self.assertEqual(SpendGuard.info().effects, ["payment"])
