// Command kubeprint answers JSON-lines cases with kubectl's own formatting, for Karta's tests of
// `karta get` and `karta describe`: {"age": MILLISECONDS} is apimachinery's duration.HumanDuration,
// {"rows": [[cells]], "minwidth": N, "padding": N} is text/tabwriter as kubectl's printers configure it
// (cells joined by tabs, one line per row). Each answer is one JSON line: {"text": "..."}.
// {"proxy": {"env": {NAME: VALUE}, "url": SERVER}} is the proxy client-go's transport uses for requests to
// SERVER with that environment (net/http's ProxyFromEnvironment, wrapped by apimachinery's
// NewProxierWithNoProxyCIDR as client-go wraps it): {"text": PROXY-URL}, "" for none, or {"error": "..."}.
// {"timeout": TEXT} is clientcmd.ParseTimeout (kubectl's --request-timeout) and {"duration": TEXT} Go's
// time.ParseDuration: {"text": NANOSECONDS, "string": Duration.String()} or {"error": "..."}.
// {"jsonpath": {"template": T, "data": JSON, "asJSON": B, "allowMissingKeys": B}} prints the data (decoded as
// kubectl decodes an object it prints) with the printer kubectl builds for -o jsonpath=T (jsonpath-as-json=T
// with asJSON; --allow-missing-template-keys defaults to true): {"text": OUTPUT} or {"error": "..."}.
// {"customColumns": {"spec": S, "file": TEXT, "data": JSON, "noHeaders": B}} prints it with kubectl's
// -o custom-columns=S printer (custom-columns-file= with a file holding TEXT when "file" is given); data with
// an "items" array of objects is a List, as kubectl prints one: {"text": OUTPUT} and/or {"error": "..."}.
// A printer that panics answers {"panic": "..."}.
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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/kubectl/pkg/cmd/get"
)

type jsonpathCase struct {
	Template         string          `json:"template"`
	Data             json.RawMessage `json:"data"`
	AsJSON           bool            `json:"asJSON"`
	AllowMissingKeys *bool           `json:"allowMissingKeys"`
}

type columnsCase struct {
	Spec      string          `json:"spec"`
	File      *string         `json:"file"`
	Data      json.RawMessage `json:"data"`
	NoHeaders bool            `json:"noHeaders"`
}

// object decodes data as kubectl holds what it prints: unstructured content (int64 or float64 numbers),
// a List when it has an "items" array of objects.
func object(data json.RawMessage) (runtime.Object, error) {
	var content map[string]interface{}
	if err := utiljson.Unmarshal(data, &content); err != nil {
		return nil, err
	}
	if items, ok := content["items"].([]interface{}); ok {
		list := &unstructured.UnstructuredList{Object: map[string]interface{}{}}
		for k, v := range content {
			if k != "items" {
				list.Object[k] = v
			}
		}
		for _, item := range items {
			m, ok := item.(map[string]interface{})
			if !ok {
				return &unstructured.Unstructured{Object: content}, nil
			}
			list.Items = append(list.Items, unstructured.Unstructured{Object: m})
		}
		return list, nil
	}
	return &unstructured.Unstructured{Object: content}, nil
}

// printWith builds a printer and prints data with it; a panic is an answer too.
func printWith(build func() (printers.ResourcePrinter, error), data json.RawMessage) (answer map[string]string) {
	defer func() {
		if p := recover(); p != nil {
			answer = map[string]string{"panic": fmt.Sprint(p)}
		}
	}()
	p, err := build()
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	obj, err := object(data)
	if err != nil {
		return map[string]string{"error": "bad data: " + err.Error()}
	}
	var b bytes.Buffer
	err = p.PrintObj(obj, &b)
	answer = map[string]string{}
	if err != nil {
		answer["error"] = err.Error()
	}
	if err == nil || b.Len() > 0 {
		answer["text"] = b.String()
	}
	return answer
}

func jsonpathAnswer(c *jsonpathCase) map[string]string {
	format := "jsonpath="
	if c.AsJSON {
		format = "jsonpath-as-json="
	}
	allow := c.AllowMissingKeys == nil || *c.AllowMissingKeys
	flags := genericclioptions.NewJSONPathPrintFlags("", allow)
	return printWith(func() (printers.ResourcePrinter, error) { return flags.ToPrinter(format + c.Template) }, c.Data)
}

func columnsAnswer(c *columnsCase) map[string]string {
	flags := get.NewCustomColumnsPrintFlags()
	flags.NoHeaders = c.NoHeaders
	format := "custom-columns=" + c.Spec
	if c.File != nil {
		f, err := os.CreateTemp("", "columns")
		if err != nil {
			return map[string]string{"error": err.Error()}
		}
		defer os.Remove(f.Name())
		f.WriteString(*c.File)
		f.Close()
		format = "custom-columns-file=" + f.Name()
	}
	return printWith(func() (printers.ResourcePrinter, error) { return flags.ToPrinter(format) }, c.Data)
}

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
	JSONPath *jsonpathCase `json:"jsonpath"`
	Columns  *columnsCase  `json:"customColumns"`
	Proxy    *proxyCase    `json:"proxy"`
	Timeout  *string       `json:"timeout"`
	Duration *string       `json:"duration"`
	Age      *int64        `json:"age"`
	Rows     [][]string    `json:"rows"`
	MinWidth int           `json:"minwidth"`
	Padding  int           `json:"padding"`
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
		if r.JSONPath != nil || r.Columns != nil {
			var answer map[string]string
			if r.JSONPath != nil {
				answer = jsonpathAnswer(r.JSONPath)
			} else {
				answer = columnsAnswer(r.Columns)
			}
			if err := out.Encode(answer); err != nil {
				os.Exit(1)
			}
			continue
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
