"""Hook handlers, one module per concern; imported lazily by pokayokay.hook."""
