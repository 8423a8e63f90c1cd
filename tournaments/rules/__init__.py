"""The event's rules in plain Python (no Django): who advances, roll-offs, prizes, the cash
book's sums, the waitlist, draw codes, where an event stands. Services load, call, save."""
