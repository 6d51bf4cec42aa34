"""results-check: a small check of contract 0.2 that vets results, for the
kit's tests through the real host (plugins/python/tests/host_results.py).

- A text result holding `SECRET-<digits>` is redacted (kind `secret`) and
  raises `secret-seen`; in a JSON result every string holding one is masked
  by pointer.
- A result telling the model to ignore its instructions is withheld
  (`results.injection`) and raises `untrusted-content` with the addresses
  it names; a later `send_email` to one of them is denied
  (`results.steered`), read from the run's labels.
- A result holding `RAISE` makes `check_result` raise (the host withholds).
"""

import re

from toolvet_check import Check, Label, abstain_result, allow, allow_result, deny, export, pointer, redact, span, withhold

SECRET = re.compile(r"SECRET-[0-9]+")
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


class ResultsCheck(Check):
    name = "results-check"
    description = "Masks secrets in results, withholds injected instructions"

    def check(self, call, tool, ctx):
        if call.name == "send_email" and call.str_arg("to") in ctx.label_values("untrusted-content"):
            return deny("results.steered", "the recipient came from content that tried to steer the agent")
        return allow()

    def check_result(self, call, tool, ctx, result):
        if result.kind == "text" and "RAISE" in result.content:
            raise RuntimeError("asked to fail")
        if result.kind == "text" and "ignore previous instructions" in result.content.lower():
            found = ADDRESS.findall(result.content)
            return withhold(
                "results.injection",
                "the result tries to give the agent instructions; it was withheld",
                labels=[Label("untrusted-content", found)],
            )
        if result.kind == "json":
            masks = [pointer(at, "secret") for at, text in result.strings() if SECRET.search(text)]
        else:
            masks = [span(m.start(), m.end(), "secret") for m in SECRET.finditer(result.content)]
        if masks:
            return redact(masks, labels=[Label("secret-seen")])
        return allow_result() if not result.is_error else abstain_result()


Check = ResultCheck = export(ResultsCheck)
