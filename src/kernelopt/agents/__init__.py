"""kernelopt inside coding agents: the kernel-optimization skill (package data), ``kernelopt agent install``
(:mod:`.install`) and the MCP server (:mod:`.mcp_server`), whose tools call the loop's stage handlers
(:mod:`.drive`) and the stage runners, never a second orchestration."""
