"""Wiring: the command line and the services that join engine, client, transport and trace."""
