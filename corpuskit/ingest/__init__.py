"""Getting records in: the record model, file importers, live collectors, the demo generator."""
