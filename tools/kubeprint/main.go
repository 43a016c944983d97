// Command kubeprint answers JSON-lines cases with kubectl's own formatting, for Karta's tests of
// `karta get` and `karta describe`: {"age": MILLISECONDS} is apimachinery's duration.HumanDuration,
// {"rows": [[cells]], "minwidth": N, "padding": N} is text/tabwriter as kubectl's printers configure it
// (cells joined by tabs, one line per row). Each answer is one JSON line: {"text": "..."}.
// {"proxy": {"env": {NAME: VALUE}, "url": SERVER}} is the proxy client-go's transport uses for requests to
// SERVER with that environment (net/http's ProxyFromEnvironment, wrapped by apimachinery's
// NewProxierWithNoProxyCIDR as client-go wraps it): {"text": PROXY-URL}, "" for none, or {"error": "..."}.
// {"timeout": TEXT} is clientcmd.ParseTimeout (kubectl's --request-timeout) and {"duration": TEXT} Go's
// time.ParseDuration: {"text": NANOSECONDS, "string": Duration.String()} or {"error": "..."}.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/net/http/httpproxy"
	"k8s.io/apimachinery/pkg/util/duration"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/tools/clientcmd"
)

type proxyCase struct {
	Env map[string]string `json:"env"`
	URL string            `json:"url"`
}

var proxyVariables = []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "REQUEST_METHOD"}

// proxyFor sets the case's environment and asks client-go's proxier (which reads it on each call).
func proxyFor(c *proxyCase) (string, error) {
	for _, k := range proxyVariables {
		os.Unsetenv(k)
	}
	for k, v := range c.Env {
		os.Setenv(k, v)
	}
	fromEnvironment := func(req *http.Request) (*url.URL, error) { return httpproxy.FromEnvironment().ProxyFunc()(req.URL) }
	u, err := url.Parse(c.URL)
	if err != nil {
		return "", err
	}
	p, err := utilnet.NewProxierWithNoProxyCIDR(fromEnvironment)(&http.Request{URL: u})
	if err != nil || p == nil {
		return "", err
	}
	return p.String(), nil
}

type request struct {
	Proxy    *proxyCase `json:"proxy"`
	Timeout  *string    `json:"timeout"`
	Duration *string    `json:"duration"`
	Age      *int64     `json:"age"`
	Rows     [][]string `json:"rows"`
	MinWidth int        `json:"minwidth"`
	Padding  int        `json:"padding"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var text, str string
		var err error
		if r.Proxy != nil {
			text, err = proxyFor(r.Proxy)
		} else if r.Timeout != nil || r.Duration != nil {
			var d time.Duration
			if r.Timeout != nil {
				d, err = clientcmd.ParseTimeout(*r.Timeout)
			} else {
				d, err = time.ParseDuration(*r.Duration)
			}
			text, str = strconv.FormatInt(int64(d), 10), d.String()
		} else if r.Age != nil {
			text = duration.HumanDuration(time.Duration(*r.Age) * time.Millisecond)
		} else {
			var b bytes.Buffer
			w := tabwriter.NewWriter(&b, r.MinWidth, 4, r.Padding, ' ', 0)
			for _, row := range r.Rows {
				fmt.Fprintln(w, strings.Join(row, "\t"))
			}
			w.Flush()
			text = b.String()
		}
		answer := map[string]string{"text": text}
		if str != "" {
			answer["string"] = str
		}
		if err != nil {
			answer = map[string]string{"error": err.Error()}
		}
		if err := out.Encode(answer); err != nil {
			os.Exit(1)
		}
	}
}
