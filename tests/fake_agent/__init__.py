"""A made-up agent CLI, "fakecli", that proves the door of issue 39: everything relaybay
needs of an agent is one package — its payload shapes, its tool names, its answers and its
capabilities (no turn end to block, no "ask") — and nothing outside it names the agent.
A server started with RELAYBAY_AGENT_PACKAGES=tests.fake_agent.hooks registers it."""
