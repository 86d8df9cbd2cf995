"""The tasks extension (SEP-2663) in the engine: the service answering tasks/* (`service`), the store
port and its in-memory store (`store`), what a handler's task sees (`context`), store writes retried
through an outage (`retry`) and status notifications (`notifications`). A shared store for several
nodes lives in `mrtr_studio.stores`, behind the same port."""
