// Command workloadbuilder-oracle answers cases given as JSON lines on stdin with what the Go libraries do,
// one JSON line per case on stdout: the workloadbuilder of k8s.io/component-helpers (Validate,
// BuildWorkload, NewPodGroup, NewCompositePodGroup, over a WorkloadItem tree or an existing Workload, and
// the config resolution), the Job controller's names and the objects it creates for a Job, and the API
// server's validation of a Job's spec.scheduling (k8s.io/kubernetes). Test tooling only.
//
// A request is {"id": "...", "op": "builder"|"resolve"|"names"|"jobCompile"|"jobValidate", ...}; the
// answer is {"id": "...", "result": ...}, or {"id": "...", "panic": "..."} when the library panics.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

type request struct {
	ID string `json:"id"`
	Op string `json:"op"`

	// builder
	Root     *itemJSON       `json:"root"`
	Options  optionsJSON     `json:"options"`
	Existing json.RawMessage `json:"existing"`
	Steps    []stepJSON      `json:"steps"`

	// resolve
	Item *itemJSON `json:"item"`

	// names
	Names []nameJSON `json:"names"`

	// jobCompile, jobValidate
	Job            json.RawMessage `json:"job"`
	OldJob         json.RawMessage `json:"oldJob"`
	WorkloadUID    string          `json:"workloadUID"`
	ParentWorkload json.RawMessage `json:"parentWorkload"`
}

type response struct {
	ID     string `json:"id"`
	Result any    `json:"result,omitempty"`
	Panic  string `json:"panic,omitempty"`
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if err := enc.Encode(answer(line)); err != nil {
				fmt.Fprintf(os.Stderr, "workloadbuilder-oracle: encoding an answer: %v\n", err)
				os.Exit(1)
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "workloadbuilder-oracle: reading stdin: %v\n", err)
			os.Exit(1)
		}
	}
}

func answer(line []byte) (resp response) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{Panic: fmt.Sprintf("bad request: %v", err)}
	}
	resp.ID = req.ID
	defer func() {
		if r := recover(); r != nil {
			resp.Result = nil
			resp.Panic = fmt.Sprintf("%v\n%s", r, debug.Stack())
		}
	}()
	switch req.Op {
	case "builder":
		resp.Result = runBuilder(&req)
	case "resolve":
		resp.Result = runResolve(&req)
	case "names":
		resp.Result = runNames(&req)
	case "jobCompile":
		resp.Result = runJobCompile(&req)
	case "jobValidate":
		resp.Result = runJobValidate(&req)
	default:
		resp.Panic = fmt.Sprintf("unknown op %q", req.Op)
	}
	return resp
}
