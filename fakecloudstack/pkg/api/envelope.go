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

package api

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
)

// List is a list command's answer. Count is the total across pages; Items is one page.
type List struct {
	Key   string
	Count int
	Items any
}

// Success is the answer of commands that only report success.
type Success struct {
	Success bool `json:"success"`
}

// ResponseKey is the single top-level key of every answer.
func ResponseKey(command string) string { return strings.ToLower(command) + "response" }

// Encode wraps a handler's payload in the command's envelope.
func Encode(command string, payload any) ([]byte, error) {
	head := `{"` + ResponseKey(command) + `":`
	l, isList := payload.(List)
	if !isList {
		body, err := json.Marshal(payload)
		if err != nil {
			return nil, err
		}
		return join(head, body, "}"), nil
	}
	// Lists as BaseListCmd writes them: {} when nothing matches, only the count when the page
	// is past the end.
	if l.Count == 0 {
		return []byte(head + "{}}"), nil
	}
	count := `{"count":` + strconv.Itoa(l.Count)
	if v := reflect.ValueOf(l.Items); !v.IsValid() || v.Len() == 0 {
		return []byte(head + count + "}}"), nil
	}
	items, err := json.Marshal(l.Items)
	if err != nil {
		return nil, err
	}
	return join(head+count+`,"`+l.Key+`":`, items, "}}"), nil
}

// join copies body once, between prefix and suffix: a list answer is large, and every extra
// copy is garbage the collector must chase.
func join(prefix string, body []byte, suffix string) []byte {
	out := make([]byte, 0, len(prefix)+len(body)+len(suffix))
	out = append(out, prefix...)
	out = append(out, body...)
	return append(out, suffix...)
}

// errorBody is CloudStack's error envelope content. CSCode 0 is left out, as in 401 answers.
type errorBody struct {
	UUIDList  []string `json:"uuidList"`
	ErrorCode int      `json:"errorcode"`
	CSCode    int      `json:"cserrorcode,omitempty"`
	ErrorText string   `json:"errortext"`
}

// EncodeError renders an API error under key (a command's response key or "errorresponse").
func EncodeError(key string, e *cserr.Error) []byte {
	body, _ := json.Marshal(map[string]errorBody{key: {UUIDList: []string{}, ErrorCode: e.Code, CSCode: e.CSCode, ErrorText: e.Text}})
	return body
}
