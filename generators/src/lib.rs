//! Bit-exact port of the Graph500 Kronecker generator. (Being built; see issue 3.)
