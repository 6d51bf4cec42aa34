"""CrewAI: a before-hook that denies with the policy's reason and asks an approver."""

import json
import os
import sys

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")

from crewai import Agent, Crew, Task
from crewai.llms.base_llm import BaseLLM
from crewai.tools import tool

import toolvet
from toolvet.integrations.crewai import install

host = toolvet.Host.from_file(sys.argv[1] if len(sys.argv) > 1 else "toolvet.toml")


@tool("rotate_key")
def rotate_key(service: str) -> str:
    """Rotate a service's API key."""
    return f"rotated the key of {service}"


@tool("delete_repository")
def delete_repository(repo: str) -> str:
    """Delete a repository."""
    return "deleted"


def approver(ruling, tool_name, arguments):  # blocks this worker until a person answers
    print("asked:", tool_name, arguments, "-", ruling.reason)
    return {"approved": True, "reviewer": "alice"}


class Model(BaseLLM):  # stands in for your LLM
    prompts: list = []

    def call(self, messages, tools=None, callbacks=None, available_functions=None, **kwargs):
        self.prompts.append(str(messages))
        act = lambda name, args: f"Thought: go\nAction: {name}\nAction Input: {json.dumps(args)}"
        script = [act("delete_repository", {"repo": "acme/app"}), act("rotate_key", {"service": "billing"})]
        return script[len(self.prompts) - 1] if len(self.prompts) <= 2 else "Thought: done\nFinal Answer: done"

    def supports_function_calling(self):
        return False


uninstall = install(host, approve=approver)
model = Model(model="scripted")
agent = Agent(role="ops", goal="operate", backstory="an operator", llm=model, tools=[rotate_key, delete_repository])
Crew(agents=[agent], tasks=[Task(description="ship it", expected_output="a word", agent=agent)]).kickoff()
uninstall()
print("denied:", "Blocked by policy:" in model.prompts[1])
print("approved:", "rotated the key of billing" in model.prompts[2])
assert "Blocked by policy:" in model.prompts[1] and "rotated the key of billing" in model.prompts[2]
