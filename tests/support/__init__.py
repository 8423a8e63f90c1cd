"""What the tests share: factories for single rows, builders for an event in a given state,
and module-scoped scenarios built once per test module. None of it reaches into a private
(underscore) function of production code: events are built through the public services,
the rehearsal's public steps, or the factories here."""
