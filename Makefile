# Developer shortcuts; CI runs .ci/run, which these mirror.
.PHONY: all build test race lint demo bench bench-all
all: lint test

build:
	CGO_ENABLED=0 go build -trimpath -o bin/breaker ./cmd/breaker

test:
	go test ./...

race:
	go test -race -shuffle=on -count=1 ./...

lint:
	gofmt -l . | (! grep .)
	go vet ./...
	staticcheck ./...

demo:
	go run ./cmd/breaker demo

bench:
	bash bench/run.sh

bench-all:
	bash bench/all.sh
