/*
Copyright The Karpenter CloudStack Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package server

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/api"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/auth"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
)

const (
	contentType = "application/json; charset=UTF-8"
	// errorKey wraps errors raised before a command is known to exist.
	errorKey = "errorresponse"
)

// serveAPI follows ApiServlet: find the command, authenticate, check the parameters, apply the
// injected faults, run the handler and write the envelope.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	params, err := parseRequest(r)
	if err != nil {
		s.fail(w, "", errorKey, cserr.New(cserr.MalformedParameter, cserr.CSGeneric, "Unable to parse the request: %v", err))
		return
	}
	command := params.Get("command")
	if command == "" {
		s.fail(w, "", errorKey, cserr.New(cserr.UnsupportedAction, cserr.CSGeneric, "Invalid request, no command sent"))
		return
	}
	key := api.ResponseKey(command)
	if !strings.EqualFold(params.Get("response"), "json") {
		s.fail(w, command, errorKey, cserr.New(cserr.UnsupportedAction, cserr.CSGeneric, "fakecloudstack only answers response=json; XML is not supported"))
		return
	}
	cmd, known := s.commands[command]
	if !known {
		// ApiServer.verifyRequest refuses a command it does not know before it checks the
		// signature, and ApiServlet answers that as it answers bad credentials.
		s.fail(w, command, errorKey, cserr.BadCredentials())
		return
	}
	apiKey, err := auth.Verify(s.backend.Store, params, s.backend.Clock.Now())
	if err != nil {
		s.fail(w, command, key, asAPIError(err))
		return
	}
	account, _ := s.backend.Store.AccountByKey(apiKey)
	if !cmd.AvailableTo(account) {
		// The PermissionDeniedException of ApiServer.checkCommandAvailable (CloudStack 4.20).
		s.fail(w, command, key, cserr.New(cserr.Unauthorized, cserr.CSGeneric, "The given command '%s' either does not exist, is not available for user.", command))
		return
	}
	if e := checkParams(cmd, params); e != nil {
		s.fail(w, command, key, e)
		return
	}
	if err := s.unwritable(); err != nil {
		s.fail(w, command, key, stateFileError(err))
		return
	}
	injected := s.backend.Faults.Call(account.ID, command, params)
	wait(r, s.backend.Clock, injected.Delay)
	if injected.Err != nil {
		s.fail(w, command, key, injected.Err)
		return
	}
	payload, err := cmd.Handle(&api.Request{Command: command, Params: params, Account: account, GET: r.Method == http.MethodGet})
	if err != nil {
		s.fail(w, command, key, asAPIError(err))
		return
	}
	body, err := api.Encode(command, payload)
	if err != nil {
		s.fail(w, command, key, cserr.New(cserr.InternalError, cserr.CSCloudRuntime, "encoding response, %v", err))
		return
	}
	if injected.Drop {
		s.record(command, droppedCode)
		s.cutOff(w, body)
	}
	s.record(command, strconv.Itoa(http.StatusOK))
	s.write(w, http.StatusOK, body)
}

// stateFileError answers a call the state file could not take, or any call after that.
func stateFileError(err error) *cserr.Error {
	return cserr.New(cserr.InternalError, cserr.CSCloudRuntime, "%s", stateFileMessage(err))
}

func stateFileMessage(err error) string {
	return fmt.Sprintf("writing the state file, %v; restart fakecloudstack on its state file", err)
}

// droppedCode labels the calls a drop rule served without a complete answer.
const droppedCode = "dropped"

// cutOff sends the headers and half of a served call's answer, then closes the connection: the
// client sees the answer break off, as when a proxy or the network gives up on a slow call, and
// cannot tell whether the change happened. A truncated answer, not a closed idle connection,
// so Go's transport does not quietly send the request again.
func (s *Server) cutOff(w http.ResponseWriter, body []byte) {
	if err := s.durable(); err == nil {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:len(body)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	panic(http.ErrAbortHandler)
}

func checkParams(cmd api.Command, params map[string][]string) *cserr.Error {
	if e := validateValues(cmd, params); e != nil {
		return e
	}
	for _, p := range cmd.Params {
		if p.Required && !hasParam(params, p) {
			return cserr.MissingParam(strings.ToLower(cmd.Name), p.Name)
		}
	}
	return nil
}

// hasParam accepts map parameters (tags[0].key=...) as present.
func hasParam(params map[string][]string, p api.Param) bool {
	if vs := params[p.Name]; len(vs) > 0 && vs[0] != "" {
		return true
	}
	if p.Type != "map" {
		return false
	}
	for k := range params {
		if strings.HasPrefix(k, p.Name+"[") {
			return true
		}
	}
	return false
}

func asAPIError(err error) *cserr.Error {
	var e *cserr.Error
	if errors.As(err, &e) {
		return e
	}
	return cserr.New(cserr.InternalError, cserr.CSCloudRuntime, "%v", err)
}

func (s *Server) fail(w http.ResponseWriter, command, key string, e *cserr.Error) {
	s.record(command, strconv.Itoa(e.Code))
	s.write(w, e.Code, api.EncodeError(key, e))
}

// record counts a call by its code: the HTTP status, or droppedCode.
func (s *Server) record(command, code string) {
	// Only known names become label values, so junk requests cannot grow the metric.
	if _, known := s.commands[command]; !known {
		command = "unknown"
	}
	s.calls.record(command, code)
	s.metrics.apiCalls.WithLabelValues(command, code).Inc()
}

// write answers once the state file, if one is kept, covers the answer: a client is never
// told of a change a killed server would lose.
func (s *Server) write(w http.ResponseWriter, status int, body []byte) {
	if err := s.durable(); err != nil {
		status, body = cserr.InternalError, api.EncodeError(errorKey, stateFileError(err))
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
