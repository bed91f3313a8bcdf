# A small test graph: 10 vertices (0..9), 0-based ids as GAPBS reads them.
# Vertex 8 has no edge; 5-5 is a self-loop; 3 4 appears twice.
0 1
0 2
2 1
1 3

3 4
2 4
4 5
5 5
3 4
6 7
7 9
