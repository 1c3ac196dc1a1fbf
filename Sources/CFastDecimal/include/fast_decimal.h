#pragma once

// Plain decimal numbers `[-]digits[.digits]` converted with SSSE3 (docs/logs.md, "Numbers"):
// the CSV reader's one-check rows call it for their run of numeric fields and keep their own
// path as the fallback.

// Reads `count` (1...4) plain decimals at p, each followed by `delimiter` but the last; 16 *
// count bytes must be readable from p. A number is an optional '-', digits, and at most one '.'
// with at least one digit after it; it ends at the first byte that is neither a digit nor the
// first '.'. Stores the correctly rounded double of each number in values[0..<count] ("-0"
// gives -0.0) and returns the offset from p of the byte after the last number (what that byte
// is, is the caller's to check). Returns 0, values maybe partly written, when it does not
// decide: a number without a digit, with a '+', a '.' without a digit after it, a number of
// 16 bytes or more (its sign included), a number not followed by the delimiter (but the last),
// or a CPU without SSSE3. Within those bounds a number has at most 15 digits (below 2^53) and
// 14 fraction digits, so one division by an exact power of ten gives the correctly rounded
// value (Clinger's fast path).
int geofence_plain_decimals(const unsigned char *p, int count, unsigned char delimiter, double *values);
