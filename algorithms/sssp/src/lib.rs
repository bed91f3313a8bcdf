//! Delta-stepping SSSP as delegated kernels. (Being built; see issue 4.)
