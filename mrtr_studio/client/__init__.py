"""The simulated client: settings, the round-trip driver, responders and the session that runs them."""
