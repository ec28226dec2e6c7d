"""A planner agent with nothing new to try."""

print("searched gpu-wiki and the reference project")
print("NO_NEW_ACTION: every applicable technique was tried in v1..v3")
