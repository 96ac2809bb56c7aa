module k6-writepath/bench/sink

go 1.22
