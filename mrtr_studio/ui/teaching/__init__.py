"""Teaching the protocol (issue 7): lessons, the tamper-and-replay lab, eras side by side, a cluster."""
