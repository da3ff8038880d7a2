"""The shared kit of `relaybay setup` for the agents' packages: reading and writing an
agent's own settings file while keeping the owner's formatting byte for byte (`document`,
over `splice`'s surgery). Each agent's own setup lives in its package
(agents/claude_code/setup/, agents/codex/setup/): what relaybay writes there, the plan, its
diff, hash and backed-up write, detection and the items of --check, doctor and Settings →
Integrations.
"""
