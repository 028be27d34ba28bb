"""Fixed sentences pokayokay puts in front of Claude. A module of its own so that hooks can read
them without importing the features that own them."""

SESSION_START_TIP = "Tip: Use `/remember <learning>` to capture insights."
