module github.com/karpenter-cloudstack/karpenter-provider-cloudstack/tools

go 1.26.9
