// The Go baseline: net/http/httputil's ReverseProxy in front of one device, as a Go device gateway
// (Shifu's deviceShifu) is at heart. Its transport keeps enough idle connections per host for every
// caller connection (Go's default keeps 2, which would open a new connection per call at 64).
// Usage: proxy http://127.0.0.1:<device port>; prints {"address":"127.0.0.1:port"} once it listens.
package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
)

func main() {
	target, err := url.Parse(os.Args[1])
	if err != nil {
		panic(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns = 1024
	transport.MaxIdleConnsPerHost = 1024
	proxy.Transport = transport
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Printf("{\"address\":%q}\n", ln.Addr().String())
	_ = http.Serve(ln, proxy)
}
