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
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/admin"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

func (s *Server) adminRoutes(r *mux.Router) {
	r.Use(s.requireAdminToken)
	r.Use(s.refuseWhenUnwritable)
	r.HandleFunc("/state", s.getState).Methods(http.MethodGet)
	r.HandleFunc("/faults", s.getFaults).Methods(http.MethodGet)
	r.HandleFunc("/faults", s.putFaults).Methods(http.MethodPut, http.MethodPost)
	r.HandleFunc("/latency", s.getLatency).Methods(http.MethodGet)
	r.HandleFunc("/latency", s.putLatency).Methods(http.MethodPut, http.MethodPost)
	r.HandleFunc("/templates", s.addTemplate).Methods(http.MethodPost)
	r.HandleFunc("/zones/{zone}/capacity", s.setCapacity).Methods(http.MethodPost, http.MethodPut)
	r.HandleFunc("/vms/{id}", s.getVM).Methods(http.MethodGet)
	r.HandleFunc("/vms/{id}/destroy", s.destroyVM).Methods(http.MethodPost)
	r.HandleFunc("/calls", s.getCalls).Methods(http.MethodGet)
	r.HandleFunc("/reset-calls", s.resetCalls).Methods(http.MethodPost)
}

// requireAdminToken answers 401 unless the request carries the admin token; the comparison
// takes the same time whatever the token, so it leaks nothing about it.
func (s *Server) requireAdminToken(next http.Handler) http.Handler {
	want := []byte("Bearer " + s.adminToken)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(admin.Header)), want) != 1 {
			s.writeJSON(w, http.StatusUnauthorized, adminError("the admin endpoints need the header \"Authorization: Bearer <token>\" with the token of --admin-token"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuseWhenUnwritable answers 500 after a failed state-file write, before the handler can
// change or show a state the file no longer follows.
func (s *Server) refuseWhenUnwritable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.unwritable(); err != nil {
			s.writeJSON(w, http.StatusInternalServerError, adminError(stateFileMessage(err)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) getState(w http.ResponseWriter, _ *http.Request) {
	st := admin.State{VMs: s.backend.Store.StateCounts(), Jobs: s.backend.Jobs.Counts(), Zones: map[string]capacity.Usage{},
		Latency: s.backend.Jobs.Latency()}
	for _, z := range s.backend.Store.Zones.List() {
		st.Zones[z.Name] = s.backend.Capacity.Usage(z.ID)
	}
	s.writeJSON(w, http.StatusOK, st)
}

func (s *Server) getFaults(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, s.backend.Faults.Get())
}

func (s *Server) putFaults(w http.ResponseWriter, r *http.Request) {
	var cfg faults.Config
	if !s.readJSON(w, r, &cfg) || !s.valid(w, cfg.Validate()) {
		return
	}
	s.backend.Faults.Set(cfg)
	s.adminVersion.Add(1)
	s.writeJSON(w, http.StatusOK, s.backend.Faults.Get())
}

func (s *Server) getLatency(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, s.backend.Jobs.Latency())
}

func (s *Server) putLatency(w http.ResponseWriter, r *http.Request) {
	var p jobs.Profile
	if !s.readJSON(w, r, &p) || !s.valid(w, p.Validate()) {
		return
	}
	s.backend.Jobs.SetLatency(p)
	s.adminVersion.Add(1)
	s.writeJSON(w, http.StatusOK, p)
}

// addTemplate registers a ready template shaped like the newest existing one (same OS, arch,
// owner and zones) and created after every existing one, so selectors that pick the newest
// match see it at once.
func (s *Server) addTemplate(w http.ResponseWriter, r *http.Request) {
	var req admin.Template
	if !s.readJSON(w, r, &req) || !s.valid(w, req.Validate()) {
		return
	}
	if _, taken := s.backend.Store.Templates.Find(func(t store.Template) bool { return t.Name == req.Name }); taken {
		s.writeJSON(w, http.StatusConflict, adminError(fmt.Sprintf("template %s already exists", req.Name)))
		return
	}
	templates := s.backend.Store.Templates.List()
	if len(templates) == 0 {
		s.writeJSON(w, http.StatusConflict, adminError("the world has no template to model the new one on"))
		return
	}
	newest := templates[0]
	for _, t := range templates[1:] {
		if t.Created.After(newest.Created) {
			newest = t
		}
	}
	tpl := newest
	tpl.ID, tpl.Name, tpl.DisplayText, tpl.Tags = s.backend.Store.NewID(), req.Name, req.Name, req.Tags
	tpl.Created = newest.Created.Add(time.Second)
	if now := s.backend.Clock.Now(); now.After(tpl.Created) {
		tpl.Created = now
	}
	s.backend.Store.Templates.Put(tpl.ID, tpl)
	s.writeJSON(w, http.StatusCreated, tpl)
}

func (s *Server) setCapacity(w http.ResponseWriter, r *http.Request) {
	name := mux.Vars(r)["zone"]
	zone, ok := s.backend.Store.Zones.Find(func(z store.Zone) bool { return z.Name == name || z.ID == name })
	if !ok {
		s.writeJSON(w, http.StatusNotFound, adminError(fmt.Sprintf("zone %s not found", name)))
		return
	}
	var req admin.Capacity
	if !s.readJSON(w, r, &req) || !s.valid(w, capacity.ValidateHosts(req.Hosts)) {
		return
	}
	s.backend.Capacity.SetZone(zone.ID, req.Hosts)
	s.adminVersion.Add(1)
	s.writeJSON(w, http.StatusOK, s.backend.Capacity.Usage(zone.ID))
}

func (s *Server) destroyVM(w http.ResponseWriter, r *http.Request) {
	id := mux.Vars(r)["id"]
	if !s.backend.DestroyOutOfBand(id) {
		s.writeJSON(w, http.StatusNotFound, adminError(fmt.Sprintf("vm %s not found", id)))
		return
	}
	vm, _ := s.backend.Store.VM(id)
	s.writeJSON(w, http.StatusOK, map[string]string{"id": id, "state": vm.State})
}

// getVM shows what a deploy call asked for, as stored, including what the API does not render.
func (s *Server) getVM(w http.ResponseWriter, r *http.Request) {
	id := mux.Vars(r)["id"]
	vm, ok := s.backend.Store.VM(id)
	if !ok {
		s.writeJSON(w, http.StatusNotFound, adminError(fmt.Sprintf("vm %s not found", id)))
		return
	}
	s.writeJSON(w, http.StatusOK, vm)
}

func (s *Server) getCalls(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, s.calls.snapshot())
}

func (s *Server) resetCalls(w http.ResponseWriter, _ *http.Request) {
	s.calls.reset()
	w.WriteHeader(http.StatusNoContent)
}

// valid answers 400 with err's text, which names the field, when err is not nil.
func (s *Server) valid(w http.ResponseWriter, err error) bool {
	if err != nil {
		s.writeJSON(w, http.StatusBadRequest, adminError(err.Error()))
		return false
	}
	return true
}

func adminError(msg string) map[string]string { return map[string]string{"error": msg} }

func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, into any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		s.writeJSON(w, http.StatusBadRequest, adminError(fmt.Sprintf("decoding body, %v", err)))
		return false
	}
	return true
}

func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	if err := s.durable(); err != nil {
		status, v = http.StatusInternalServerError, adminError(stateFileMessage(err))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
