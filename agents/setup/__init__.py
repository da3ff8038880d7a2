"""The shared kit of `relaybay setup` for the agents' packages: reading and writing an
agent's own settings file while keeping the owner's formatting byte for byte (`document`,
over `splice`'s surgery), and held hooks (`hold`: the long timeout and --hold on the events
an agent waits on while the owner decides on the board, and the check line that says
whether that works). Each agent's own setup lives in its package
(agents/claude_code/setup/, agents/codex/setup/): what relaybay writes there, the plan, its
diff, hash and backed-up write, detection and the items of --check, doctor and Settings →
Integrations.
"""
