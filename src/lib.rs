//! shardsweep core (placeholder, being written).
