"""py-misbehave: a hostile Python check for the containment tests.

The call's `behave` argument picks what `check` does (an argument, not a
setting, so one snapshot serves every behaviour): `raise` looks a currency
up in an empty rate table (a `KeyError` from the user's own line), `loop`
never returns, `grow` allocates without bound, `allow` behaves. The
setting `warm_up` makes `Check.warm_up` (run in `configure`, before the
snapshot) do the same: `raise`, `loop` or `grow` (default `none`).
"""

from __future__ import annotations

from dataclasses import dataclass

from toolvet_check import Check, Context, Decision, ToolCall, ToolInfo, allow, export

RATES: dict[str, float] = {}


@dataclass
class Settings:
    warm_up: str = "none"


class Misbehave(Check):
    name = "py-misbehave"
    version = "0.1.0"
    description = "Misbehaves as each call asks (containment tests)"
    tools = ["*"]
    Settings = Settings

    def warm_up(self) -> None:
        if self.settings.warm_up != "none":
            self.check(ToolCall("bash", f'{{"behave": "{self.settings.warm_up}"}}'), ToolInfo(), Context())

    def check(self, call: ToolCall, tool: ToolInfo, ctx: Context) -> Decision:
        behave = call.json.get("behave", "allow")
        if behave == "raise":
            rate = RATES["USD"]
            return allow() if rate else allow()
        if behave == "loop":
            n = 0
            while True:
                n += 1
        if behave == "grow":
            hoard = []
            while True:
                hoard.append(bytearray(1 << 20))
        return allow()


Check = export(Misbehave)
