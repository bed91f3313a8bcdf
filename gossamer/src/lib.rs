//! Gossamer: a delegation runtime. (Being built; see issue 2.)
