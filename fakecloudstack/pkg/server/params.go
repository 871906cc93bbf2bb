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
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/api"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
)

// maxBody bounds a form POST: 1 MB of userdata plus the rest of the parameters.
const maxBody = 2 << 20

// maxValueLength is the default length of an API parameter in the management server.
const maxValueLength = 255

// longParams have their own, larger limits checked by the command.
var longParams = map[string]bool{"userdata": true, "publickey": true, "signature": true}

// ParseParams merges the query string and a form-encoded body, as the servlet container does
// for the management server: values from both are kept, query values first.
func ParseParams(query string, contentType string, body io.Reader) (url.Values, error) {
	params, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("parsing query, %w", err)
	}
	if body == nil {
		return params, nil
	}
	if mt, _, _ := mime.ParseMediaType(contentType); mt != "application/x-www-form-urlencoded" {
		return params, nil
	}
	raw, err := io.ReadAll(io.LimitReader(body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading body, %w", err)
	}
	if len(raw) > maxBody {
		return nil, fmt.Errorf("request body larger than %d bytes", maxBody)
	}
	form, err := url.ParseQuery(string(raw))
	if err != nil {
		return nil, fmt.Errorf("parsing form, %w", err)
	}
	for k, vs := range form {
		params[k] = append(params[k], vs...)
	}
	return params, nil
}

func parseRequest(r *http.Request) (url.Values, error) {
	if r.Method != http.MethodPost {
		return ParseParams(r.URL.RawQuery, "", nil)
	}
	return ParseParams(r.URL.RawQuery, r.Header.Get("Content-Type"), r.Body)
}

// validateValues applies the checks every parameter goes through before a command runs. The
// length limit is the one of string parameters: the management server splits a list (ids=,
// resourceids=) into its elements without measuring the whole value.
func validateValues(cmd api.Command, params url.Values) *cserr.Error {
	for k, vs := range params {
		for _, v := range vs {
			if measured(cmd, k) && len(v) > maxValueLength {
				return cserr.Param("Value greater than max allowed length %d for param: %s", maxValueLength, k)
			}
			if hasControl(v) {
				return cserr.Param("Received value containing illegal ASCII non-printable characters for parameter %s", k)
			}
		}
	}
	return nil
}

// measured tells whether a parameter is held to maxValueLength: not the long ones, not those
// the command declares as lists.
func measured(cmd api.Command, name string) bool {
	name = strings.ToLower(name)
	if longParams[name] {
		return false
	}
	for _, p := range cmd.Params {
		if strings.ToLower(p.Name) == name {
			return p.Type != "list"
		}
	}
	return true
}

func hasControl(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\r' && c != '\n') || c == 0x7f {
			return true
		}
	}
	return false
}
