module github.com/toolvet/toolvet/bindings/go

go 1.19
