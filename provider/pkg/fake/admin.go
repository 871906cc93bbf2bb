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

package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Admin calls the fake cloud's /admin API (faults, latency, capacity, out-of-band destroy, call
// counts; see fakecloudstack/README.md): body is sent as JSON and the answer decoded into out
// when out is not nil.
func (s *Server) Admin(method, path string, body, out any) error {
	var reader io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.BaseURL+"/admin"+path, reader)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("calling %s /admin%s, %w", method, path, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s /admin%s answered %d: %s", method, path, resp.StatusCode, answer)
	}
	if out != nil {
		return json.Unmarshal(answer, out)
	}
	return nil
}

// CallCounts returns the calls the server answered, by command and answer code.
func (s *Server) CallCounts() (map[string]map[string]int, error) {
	counts := map[string]map[string]int{}
	return counts, s.Admin(http.MethodGet, "/calls", nil, &counts)
}
