//! Direction-optimizing BFS as delegated kernels. (Being built; see issue 4.)
