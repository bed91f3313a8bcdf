# line 1
0 1

1 2
a b
2 3
