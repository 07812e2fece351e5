// The trivial device every target calls: any path answers 200 with a small JSON body. It prints
// {"address":"127.0.0.1:port"} once it listens.
package main

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	body := []byte(`{"value":23.5,"unit":"C"}`)
	length := strconv.Itoa(len(body))
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Content-Length"] = []string{length}
		_, _ = w.Write(body)
	})
	fmt.Printf("{\"address\":%q}\n", ln.Addr().String())
	_ = http.Serve(ln, handler)
}
