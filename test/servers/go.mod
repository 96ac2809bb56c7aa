module github.com/k6-writepath/k6-writepath/test/servers

go 1.25.0
