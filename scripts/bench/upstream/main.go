// Command pier-bench-upstream runs the upstream Kubernetes service controller
// (k8s.io/cloud-provider/controllers/service, as released in Kubernetes 1.37.2: module
// k8s.io/cloud-provider v0.37.2, pinned by go.mod beside this file) against a cluster, with a cloud
// provider of its own whose load-balancer calls each take --delay and share no lock.
// It is Pier's benchmark peer: scripts/bench/run.sh --peer upstream builds it with
// scripts/bench/upstream/build.sh and measures it the way it measures Pier.
//
// The provider answers EnsureLoadBalancer with an ingress IP unique per Service (10.0.0.1
// upwards, by Service UID) and counts its calls; --counters-addr serves the counts as JSON
// ({"get":G,"ensure":E,"update":U,"delete":D,"loadBalancers":L}) so that the benchmark driver can
// tell when a node sync has reached every load balancer.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	cloudprovider "k8s.io/cloud-provider"
	servicecontroller "k8s.io/cloud-provider/controllers/service"
	controllersmetrics "k8s.io/component-base/metrics/prometheus/controllers"
	"k8s.io/klog/v2"
)

const providerName = "pier-bench"

// counters are the provider's completed calls, per operation.
type counters struct {
	get, ensure, update, delete, loadBalancers int64
}

// benchCloud is a cloudprovider.Interface with load balancers only. Every load-balancer call
// sleeps for the configured delay (a cloud API round trip) and takes no lock shared between
// Services: state is a sync.Map keyed by Service UID, counts are atomics.
type benchCloud struct {
	delay   time.Duration
	lbs     sync.Map // types.UID -> *v1.LoadBalancerStatus
	nextIP  uint32
	counted counters
}

var _ cloudprovider.Interface = (*benchCloud)(nil)
var _ cloudprovider.LoadBalancer = (*benchCloud)(nil)

func (c *benchCloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}
func (c *benchCloud) LoadBalancer() (cloudprovider.LoadBalancer, bool)                  { return c, true }
func (c *benchCloud) Instances() (cloudprovider.Instances, bool)                        { return nil, false }
func (c *benchCloud) InstancesV2() (cloudprovider.InstancesV2, bool)                    { return nil, false }
func (c *benchCloud) Zones() (cloudprovider.Zones, bool)                                { return nil, false }
func (c *benchCloud) Clusters() (cloudprovider.Clusters, bool)                          { return nil, false }
func (c *benchCloud) Routes() (cloudprovider.Routes, bool)                              { return nil, false }
func (c *benchCloud) ProviderName() string                                              { return providerName }
func (c *benchCloud) HasClusterID() bool                                                { return true }

func (c *benchCloud) wait(ctx context.Context) error {
	if c.delay <= 0 {
		return nil
	}
	t := time.NewTimer(c.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *benchCloud) GetLoadBalancer(ctx context.Context, _ string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	if err := c.wait(ctx); err != nil {
		return nil, false, err
	}
	atomic.AddInt64(&c.counted.get, 1)
	if st, ok := c.lbs.Load(svc.UID); ok {
		return st.(*v1.LoadBalancerStatus).DeepCopy(), true, nil
	}
	return nil, false, nil
}

func (c *benchCloud) GetLoadBalancerName(_ context.Context, _ string, svc *v1.Service) string {
	return cloudprovider.DefaultLoadBalancerName(svc)
}

func (c *benchCloud) EnsureLoadBalancer(ctx context.Context, _ string, svc *v1.Service, _ []*v1.Node) (*v1.LoadBalancerStatus, error) {
	if err := c.wait(ctx); err != nil {
		return nil, err
	}
	st, ok := c.lbs.Load(svc.UID)
	if !ok {
		i := atomic.AddUint32(&c.nextIP, 1)
		fresh := &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{
			IP: fmt.Sprintf("10.%d.%d.%d", (i>>16)&0xff, (i>>8)&0xff, i&0xff),
		}}}
		var loaded bool
		if st, loaded = c.lbs.LoadOrStore(svc.UID, fresh); !loaded {
			atomic.AddInt64(&c.counted.loadBalancers, 1)
		}
	}
	atomic.AddInt64(&c.counted.ensure, 1)
	return st.(*v1.LoadBalancerStatus).DeepCopy(), nil
}

func (c *benchCloud) UpdateLoadBalancer(ctx context.Context, _ string, svc *v1.Service, _ []*v1.Node) error {
	if err := c.wait(ctx); err != nil {
		return err
	}
	atomic.AddInt64(&c.counted.update, 1)
	return nil
}

func (c *benchCloud) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *v1.Service) error {
	if err := c.wait(ctx); err != nil {
		return err
	}
	if _, ok := c.lbs.LoadAndDelete(svc.UID); ok {
		atomic.AddInt64(&c.counted.loadBalancers, -1)
	}
	atomic.AddInt64(&c.counted.delete, 1)
	return nil
}

func (c *benchCloud) snapshot() map[string]int64 {
	return map[string]int64{
		"get":           atomic.LoadInt64(&c.counted.get),
		"ensure":        atomic.LoadInt64(&c.counted.ensure),
		"update":        atomic.LoadInt64(&c.counted.update),
		"delete":        atomic.LoadInt64(&c.counted.delete),
		"loadBalancers": atomic.LoadInt64(&c.counted.loadBalancers),
	}
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster")
	workers := flag.Int("workers", 50, "service workers (kube-controller-manager's --concurrent-service-syncs)")
	qps := flag.Float64("kube-api-qps", 5000, "client-side QPS limit towards the apiserver")
	burst := flag.Int("kube-api-burst", 5000, "client-side burst towards the apiserver")
	delay := flag.Duration("delay", 0, "duration of every load-balancer call of the provider")
	countersAddr := flag.String("counters-addr", "127.0.0.1:0", "host:port serving the provider's call counts as JSON")
	clusterName := flag.String("cluster-name", "kubernetes", "cluster name handed to the provider")
	klog.InitFlags(nil)
	flag.Parse()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		klog.Fatalf("kubeconfig %q: %v", *kubeconfig, err)
	}
	config.QPS = float32(*qps)
	config.Burst = *burst
	config.ContentType = "application/vnd.kubernetes.protobuf"
	config.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	config.UserAgent = "pier-bench-upstream/service-controller"
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		klog.Fatalf("client: %v", err)
	}

	cloud := &benchCloud{delay: *delay}
	listener, err := net.Listen("tcp", *countersAddr)
	if err != nil {
		klog.Fatalf("counters listener on %s: %v", *countersAddr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/counters", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(cloud.snapshot())
	})
	go func() {
		klog.Fatal(http.Serve(listener, mux))
	}()
	klog.Infof("counters at http://%s/counters", listener.Addr())

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)

	factory := informers.NewSharedInformerFactory(client, 12*time.Hour)
	// The feature gates as cloud-controller-manager passes them (k8s.io/cloud-provider/app). The
	// service controller of this release reads none of them (the gates 1.20's read,
	// ServiceNodeExclusion and LegacyNodeRoleBehavior, are gone), so none need registering here.
	controller, err := servicecontroller.New(
		cloud,
		client,
		factory.Core().V1().Services(),
		factory.Core().V1().Nodes(),
		*clusterName,
		utilfeature.DefaultFeatureGate,
	)
	if err != nil {
		klog.Fatalf("service controller: %v", err)
	}
	factory.Start(ctx.Done())
	done := make(chan struct{})
	go func() {
		// Run reports the controller as started and stopped to a controller manager's metrics
		// (running_managed_controllers, not served here).
		controller.Run(ctx, *workers, controllersmetrics.NewControllerManagerMetrics("pier-bench-upstream"))
		close(done)
	}()
	klog.Infof("service controller of k8s.io/cloud-provider %s running: %d workers, "+
		"provider delay %v, QPS %v burst %d",
		moduleVersion("k8s.io/cloud-provider"), *workers, *delay, *qps, *burst)

	sig := <-signals
	klog.Infof("%v: stopping", sig)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	klog.Flush()
}

// moduleVersion is the version of module path this binary was built with ("unknown" without
// build information).
func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == path {
				if dep.Replace != nil {
					return dep.Replace.Version
				}
				return dep.Version
			}
		}
	}
	return "unknown"
}
