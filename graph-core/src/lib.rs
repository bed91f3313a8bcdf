//! Vertex partitions, per-shard CSR and the binary graph file. (Being built; see issue 3.)
