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

package template_test

import (
	"context"
	"testing"
	"time"

	"github.com/apache/cloudstack-go/v2/cloudstack"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/patrickmn/go-cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/template"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test/recorder"
)

var (
	ctx      context.Context
	api      *templatesAPI
	provider *template.DefaultProvider
)

// templatesAPI adds templates to the canned account, which has two x86_64 ones per zone
// and an aarch64 one in recorder.ArmZone.
type templatesAPI struct {
	*recorder.API
	extra []*cloudstack.Template
}

func (a *templatesAPI) ListTemplates(ctx context.Context, scope csapi.Scope) ([]*cloudstack.Template, error) {
	templates, err := a.API.ListTemplates(ctx, scope)
	return append(templates, a.extra...), err
}

func TestTemplate(t *testing.T) {
	ctx = context.Background()
	RegisterFailHandler(Fail)
	RunSpecs(t, "Template")
}

var _ = BeforeSuite(func() {
	api = &templatesAPI{API: recorder.NewAPI(clocktesting.NewFakeClock(time.Now()))}
})

var _ = BeforeEach(func() {
	api.Reset()
	api.extra = nil
	provider = template.NewDefaultProvider(api, cache.New(template.CacheTTL, template.CacheTTL))
})
