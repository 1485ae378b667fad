# The untouched release: nothing filled in.
# base: blank
# kind: blank
