"""`xzmem gateway`: the host gateway that devices behind NAT connect out to."""
