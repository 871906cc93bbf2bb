module github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e

go 1.26.9
