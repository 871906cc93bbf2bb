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
	"bytes"
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
		return encodeInto(head, payload, "}", 0)
	}
	// Lists as BaseListCmd writes them: {} when nothing matches, only the count when the page
	// is past the end.
	if l.Count == 0 {
		return []byte(head + "{}}"), nil
	}
	count := `{"count":` + strconv.Itoa(l.Count)
	v := reflect.ValueOf(l.Items)
	if !v.IsValid() || v.Len() == 0 {
		return []byte(head + count + "}}"), nil
	}
	return encodeInto(head+count+`,"`+l.Key+`":`, l.Items, "}}", v.Len()*itemSizeHint)
}

// itemSizeHint is about the JSON size of one VM, the largest list item, so a list answer is
// usually written into one buffer allocated once: every extra copy of a large answer is
// garbage the collector must chase.
const itemSizeHint = 2048

// encodeInto writes v as JSON between prefix and suffix, in a buffer of about sizeHint bytes.
func encodeInto(prefix string, v any, suffix string, sizeHint int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(prefix) + sizeHint + len(suffix) + 1)
	buf.WriteString(prefix)
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	buf.Truncate(buf.Len() - 1) // Encode ends with a newline.
	buf.WriteString(suffix)
	return buf.Bytes(), nil
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
