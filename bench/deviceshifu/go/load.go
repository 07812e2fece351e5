// The load generator: -c keep-alive connections, each sending GET requests one after another for
// -d seconds after -w seconds of warm-up (not counted). Connection i calls URL i mod len(urls), so a
// target with many devices gets its connections spread over them. Requests are written as raw
// bytes and replies parsed with net/http's ReadResponse, so the generator costs little CPU beside
// the gateway it measures. Prints one JSON line: requests measured, total (warm-up included),
// errors, seconds, p50/p99 in µs.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

type result struct {
	Requests int     `json:"requests"`
	Total    int     `json:"total"`
	Errors   int     `json:"errors"`
	Seconds  float64 `json:"seconds"`
	P50      float64 `json:"p50_us"`
	P99      float64 `json:"p99_us"`
}

func connection(u *url.URL, warm, end time.Time, lat *[]time.Duration, counts *[2]int) {
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		counts[1]++
		return
	}
	defer conn.Close()
	request := []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: bench\r\n\r\n")
	reader := bufio.NewReaderSize(conn, 16384)
	for {
		started := time.Now()
		if started.After(end) {
			return
		}
		if _, err := conn.Write(request); err != nil {
			counts[1]++
			return
		}
		res, err := http.ReadResponse(reader, nil)
		if err != nil {
			counts[1]++
			return
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		counts[0]++
		if res.StatusCode != 200 {
			counts[1]++
		} else if started.After(warm) {
			*lat = append(*lat, time.Since(started))
		}
	}
}

func main() {
	conns := flag.Int("c", 1, "connections")
	seconds := flag.Float64("d", 5, "seconds measured")
	warmup := flag.Float64("w", 1, "seconds of warm-up")
	urls := flag.String("u", "", "comma-separated URLs")
	flag.Parse()
	var targets []*url.URL
	for _, raw := range strings.Split(*urls, ",") {
		u, err := url.Parse(raw)
		if err != nil {
			panic(err)
		}
		targets = append(targets, u)
	}
	warm := time.Now().Add(time.Duration(*warmup * float64(time.Second)))
	end := warm.Add(time.Duration(*seconds * float64(time.Second)))
	lats := make([][]time.Duration, *conns)
	counts := make([][2]int, *conns)
	var wg sync.WaitGroup
	for i := 0; i < *conns; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			connection(targets[i%len(targets)], warm, end, &lats[i], &counts[i])
		}(i)
	}
	wg.Wait()
	all := slices.Concat(lats...)
	slices.Sort(all)
	r := result{Requests: len(all), Seconds: *seconds}
	for _, c := range counts {
		r.Total += c[0]
		r.Errors += c[1]
	}
	if len(all) > 0 {
		r.P50 = float64(all[len(all)/2].Nanoseconds()) / 1000
		r.P99 = float64(all[min(len(all)-1, len(all)*99/100)].Nanoseconds()) / 1000
	}
	_ = json.NewEncoder(os.Stdout).Encode(r)
}
